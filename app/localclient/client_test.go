package localclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/internal/apitest"
	"github.com/scouts-hq/scouts/app/localclient"
)

// What the agent answers comes back as the client's *Error with its
// status, code and words; what it accepts comes back whole.
func TestAnswersOfTheAgentAreMapped(t *testing.T) {
	ctx := context.Background()
	a := apitest.Start(t)
	created, err := a.Client.CreateEntity(ctx, "task", apitype.EntityInput{Title: ptr("Pay the invoice"), Body: ptr("by Friday")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Client.Entity(ctx, "task", created.ID)
	if err != nil || got.Title != "Pay the invoice" || got.Body != "by Friday" || got.Kind != "task" {
		t.Fatalf("the task read back: %+v %v", got, err)
	}

	for _, c := range []struct {
		name   string
		call   func() error
		status int
		code   string
		words  string
	}{
		{"a card that is not there", func() error { _, err := a.Client.Suggestion(ctx, "sg_nope"); return err }, 404, "not_found", "sg_nope"},
		{"a task without a title", func() error {
			_, err := a.Client.CreateEntity(ctx, "task", apitype.EntityInput{Title: ptr("  ")})
			return err
		}, 400, "invalid", "title is required"},
		{"an unknown filter", func() error {
			_, err := a.Client.Suggestions(ctx, localclient.SuggestionQuery{Status: "maybe"})
			return err
		}, 400, "invalid", "maybe"},
	} {
		err := c.call()
		var e *localclient.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v (%T), want a *localclient.Error", c.name, err, err)
			continue
		}
		if e.Status != c.status || e.Code != c.code || !strings.Contains(e.Error(), c.words) {
			t.Errorf("%s: %d %q %q, want %d %q saying %q", c.name, e.Status, e.Code, e.Message, c.status, c.code, c.words)
		}
	}
}

// No agent at the socket — never started, or gone leaving its socket
// file — is ErrNoAgent, saying where it looked and how to start one.
func TestNoAgentSaysWhereAndHowToStartOne(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false) // as a killed agent leaves it
	l.Close()
	for _, sock := range []string{filepath.Join(dir, "none.sock"), stale} {
		_, err := localclient.NewSocket(sock).Status(ctx)
		if !errors.Is(err, localclient.ErrNoAgent) || !strings.Contains(err.Error(), sock) || !strings.Contains(err.Error(), "scouts agent") {
			t.Errorf("%s: %v, want ErrNoAgent naming the socket and how to start the agent", filepath.Base(sock), err)
		}
	}
}

// rawServer serves handler on a socket of its own, for answers the agent
// never gives and requests to look at.
func rawServer(t *testing.T, handler http.HandlerFunc) *localclient.Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "raw.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return localclient.NewSocket(sock)
}

// An error answer that is not the agent's JSON (a proxy, a crash) still
// says what went wrong: its text, else its status; a stream answered with
// something else is refused as such.
func TestOtherAnswersStillSayWhatWentWrong(t *testing.T) {
	ctx := context.Background()
	c := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/status":
			http.Error(w, "upstream went away", http.StatusBadGateway)
		case "/api/v1/scouts":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/api/v1/stream":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
		}
	})
	var e *localclient.Error
	if _, err := c.Status(ctx); !errors.As(err, &e) || e.Status != 502 || e.Message != "upstream went away" {
		t.Errorf("a plain-text 502: %v", err)
	}
	if _, err := c.Scouts(ctx); !errors.As(err, &e) || e.Status != 503 || e.Message != "503 Service Unavailable" {
		t.Errorf("an empty 503: %v", err)
	}
	if _, err := c.Watch(ctx, 0); err == nil || !strings.Contains(err.Error(), "not an event stream") {
		t.Errorf("a stream answered with HTML: %v", err)
	}
}

// The client says who it is on every request, and with WriteFile asks
// that changes reach a managed scout's definitions file — on changes
// only, beside any query already there.
func TestClientNameAndWriteFileReachTheAgent(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var seen []string
	c := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("X-Scouts-Client"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	})
	c.ClientName, c.WriteFile = "cli", true
	c.Scout(ctx, "sc_1")
	c.PatchScout(ctx, "sc_1", apitype.PatchScout{})
	c.RunScout(ctx, "sc_1")
	mu.Lock()
	defer mu.Unlock()
	want := []string{"GET /api/v1/scouts/sc_1 cli", "PATCH /api/v1/scouts/sc_1?write_file=true cli", "POST /api/v1/scouts/sc_1/run?write_file=true cli"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

func ptr[T any](v T) *T { return &v }
