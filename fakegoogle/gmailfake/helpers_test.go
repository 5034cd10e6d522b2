package gmailfake

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

const ann = "ann@example.com"

// clock is a settable Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type published struct {
	topic string
	data  []byte
}

type env struct {
	srv   *Server
	url   string
	clock *clock
	pubs  chan published
	svc   *gmail.Service // authorised for ann
}

// newEnv starts a fake with one mailbox (ann) behind a real listener on
// port 0 and the real Gmail client. Publishing is synchronous, so a test
// can read what a change published as soon as the change returns.
func newEnv(t *testing.T, tweak ...func(*Options)) *env {
	t.Helper()
	e := &env{clock: &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}, pubs: make(chan published, 1000)}
	o := Options{Now: e.clock.Now, Publish: func(ctx context.Context, topic string, data []byte) error {
		e.pubs <- published{topic, data}
		return nil
	}}
	for _, f := range tweak {
		f(&o)
	}
	e.srv = New(o)
	e.srv.AddMailbox(ann)
	ts := httptest.NewServer(e.srv)
	t.Cleanup(ts.Close)
	e.url = ts.URL
	e.svc = e.service(t, "fake-token-for:"+ann)
	return e
}

// service uses the token-source path the product uses.
func (e *env) service(t *testing.T, token string) *gmail.Service {
	t.Helper()
	svc, err := gmail.NewService(context.Background(), option.WithEndpoint(e.url+"/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token})))
	if err != nil {
		t.Fatalf("gmail.NewService: %v", err)
	}
	return svc
}

func (e *env) deliver(t *testing.T, raw string, labels ...string) string {
	t.Helper()
	id, _, err := e.srv.Deliver(ann, []byte(raw), labels...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// apiErr asserts that err is a Google API error with this code and reason.
func apiErr(t *testing.T, err error, code int, reason string) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %v is not a *googleapi.Error", err)
	}
	if ge.Code != code || len(ge.Errors) == 0 || ge.Errors[0].Reason != reason {
		t.Fatalf("got %d %+v, want %d %s; body %s", ge.Code, ge.Errors, code, reason, ge.Body)
	}
	return ge
}

func simpleMail(subject string) string {
	return "From: Bob <bob@example.org>\r\nTo: ann@example.com\r\nSubject: " + subject +
		"\r\nMessage-ID: <" + subject + "@example.org>\r\n\r\nHello about " + subject + ".\r\n"
}

// bearer sends a fixed Authorization header, for tokens a token source
// would not produce.
type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}
