package oauthfake

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

const gmailModify = "https://www.googleapis.com/auth/gmail.modify"

type env struct {
	s     *Server
	ts    *httptest.Server
	clock *Clock
	conf  *oauth2.Config
	ctx   context.Context
}

// newEnv serves a fake and an "application" loopback listener that answers
// its redirect with 200.
func newEnv(t *testing.T, o Options) *env {
	t.Helper()
	clock := NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	if o.Now == nil {
		o.Now = clock.Now
	}
	s := New(o)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "application got "+r.URL.RawQuery)
	}))
	t.Cleanup(app.Close)
	e := EndpointsAt(ts.URL)
	return &env{
		s: s, ts: ts, clock: clock, ctx: context.Background(),
		conf: &oauth2.Config{
			ClientID: s.o.ClientID, ClientSecret: s.o.ClientSecret,
			Endpoint:    oauth2.Endpoint{AuthURL: e.Auth, TokenURL: e.Token, AuthStyle: oauth2.AuthStyleInParams},
			RedirectURL: app.URL + "/oauth2/callback",
			Scopes:      []string{gmailModify, "openid", "email"},
		},
	}
}

// consent runs the consent page and returns the redirect's parameters
// and the PKCE verifier the request was made with.
func (e *env) consent(t *testing.T, opts ...oauth2.AuthCodeOption) (url.Values, string) {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	opts = append(opts, oauth2.S256ChallengeOption(verifier))
	v, err := e.s.Consent(e.ctx, e.conf.AuthCodeURL("state-123", opts...))
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != http.StatusOK || !strings.HasPrefix(v.Body, "application got ") {
		t.Fatalf("the application's listener answered %d %q", v.Status, v.Body)
	}
	u, err := url.Parse(v.RedirectedTo)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/oauth2/callback" {
		t.Fatalf("redirected to %s", v.RedirectedTo)
	}
	return u.Query(), verifier
}

// connect runs consent and exchange with offline access.
func (e *env) connect(t *testing.T, opts ...oauth2.AuthCodeOption) *oauth2.Token {
	t.Helper()
	q, verifier := e.consent(t, append([]oauth2.AuthCodeOption{oauth2.AccessTypeOffline}, opts...)...)
	tok, err := e.conf.Exchange(e.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func wantGrantError(t *testing.T, err error, code, desc string) {
	t.Helper()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not an *oauth2.RetrieveError", err)
	}
	if re.ErrorCode != code || (desc != "" && re.ErrorDescription != desc) {
		t.Fatalf("got %q %q (HTTP %d), want %q %q", re.ErrorCode, re.ErrorDescription, re.Response.StatusCode, code, desc)
	}
}

// post sends a raw form and decodes the JSON answer.
func (e *env) post(t *testing.T, path string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(e.ts.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s answered %d %q: %v", path, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode, m
}
