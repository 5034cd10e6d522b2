package window

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localapi"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/internal/syncbuf"
)

// agentFixture is a real core and local API served on a Unix socket, as
// the agent serves it; stop and serve again to simulate a restart of the
// API.
type agentFixture struct {
	t    *testing.T
	core *core.Core
	api  *localapi.Server
	sock string
	srv  *http.Server
	log  *syncbuf.Buffer
}

func newAgent(t *testing.T) *agentFixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	c, err := core.Open(ctx, core.Config{DataDir: dir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	buf := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := &agentFixture{t: t, core: c, api: localapi.New(c, localapi.Options{Token: strings.Repeat("x", 32), Logger: log}),
		sock: filepath.Join(dir, "agent.sock"), log: buf}
	a.serve()
	t.Cleanup(func() { a.stop(); cancel(); c.Close() })
	return a
}

func (a *agentFixture) serve() {
	os.Remove(a.sock)
	l, err := net.Listen("unix", a.sock)
	if err != nil {
		a.t.Fatal(err)
	}
	a.srv = &http.Server{Handler: a.api.SocketHandler()}
	go a.srv.Serve(l)
}

func (a *agentFixture) stop() {
	if a.srv != nil {
		a.srv.Close()
		a.srv = nil
	}
}

func TestProxyForwardsToTheAgent(t *testing.T) {
	a := newAgent(t)
	p := NewProxy(a.sock)
	do := func(method, path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "wails://wails"+path, strings.NewReader(body))
		// What WebKit sends from the page: the agent's socket would refuse
		// a request with an Origin.
		req.Header.Set("Origin", "wails://wails")
		req.Header.Set("Cookie", "x=y")
		req.Header.Set("X-Scouts-Client", "browser")
		req.Header.Set("User-Agent", "WebKit test")
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		return w
	}
	w := do("GET", "/api/v1/status", "")
	if w.Code != 200 {
		t.Fatalf("status: %d %s", w.Code, w.Body)
	}
	var st apitype.Status
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || st.Version != "test" {
		t.Fatalf("status body %s: %v", w.Body, err)
	}
	// A request with a body, and the audit trail's "who".
	w = do("POST", "/api/v1/pause", "{}")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"paused":true`) {
		t.Fatalf("pause: %d %s", w.Code, w.Body)
	}
	if log := a.log.String(); !strings.Contains(log, "path=/api/v1/pause") || !strings.Contains(log, "client=window") ||
		!strings.Contains(log, `agent="WebKit test"`) {
		t.Errorf("the agent's log does not show the window's request:\n%s", log)
	}
	// Error answers pass through as they are.
	w = do("GET", "/api/v1/suggestions/sg_nope", "")
	if w.Code != 404 || !strings.Contains(w.Body.String(), `"code":"not_found"`) {
		t.Errorf("not found: %d %s", w.Code, w.Body)
	}
	// The stream cannot pass through Wails' asset server: a clear answer.
	w = do("GET", "/api/v1/stream", "")
	if w.Code != http.StatusNotImplemented || !strings.Contains(w.Body.String(), EventStream) {
		t.Errorf("stream: %d %s", w.Code, w.Body)
	}
	// Only /api/ is forwarded.
	if w = do("GET", "/index.html", ""); w.Code != 404 {
		t.Errorf("/index.html: %d", w.Code)
	}
	// Agent gone: 503 with the API's error shape.
	a.stop()
	os.Remove(a.sock)
	w = do("GET", "/api/v1/status", "")
	var e apitype.Error
	if w.Code != 503 || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Code != "unavailable" || !strings.Contains(e.Error, "scouts agent") {
		t.Errorf("agent down: %d %s", w.Code, w.Body)
	}
}

type emitted struct {
	name string
	data any
}

func next(t *testing.T, c chan emitted, name string, match func(any) bool) emitted {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case e := <-c:
			if e.name == name && (match == nil || match(e.data)) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event within 15 s", name)
		}
	}
}

func isState(s string) func(any) bool { return func(d any) bool { return d == s } }

func isType(typ string) func(any) bool {
	return func(d any) bool { m, ok := d.(Message); return ok && m.Type == typ }
}

// The bridge re-emits the agent's stream as Wails events, and after the
// agent's API comes back it resumes where it was: events published while
// it was down arrive.
func TestBridgeReemitsTheStreamAndResumes(t *testing.T) {
	a := newAgent(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan emitted, 256)
	client := localclient.NewSocket(a.sock)
	client.ClientName = ClientName
	done := make(chan struct{})
	go func() {
		defer close(done)
		Bridge(ctx, client, func(name string, data any) { events <- emitted{name, data} })
	}()

	next(t, events, EventStreamState, isState("connecting"))
	next(t, events, EventStreamState, isState("open"))
	hello := next(t, events, EventStream, isType("hello")).data.(Message)
	var st apitype.Status
	if err := json.Unmarshal(hello.Data, &st); err != nil || st.Version != "test" {
		t.Fatalf("hello data %s: %v", hello.Data, err)
	}
	if err := a.core.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	ev := next(t, events, EventStream, isType("scouts.paused")).data.(Message)
	if ev.ID <= 0 || !strings.Contains(string(ev.Data), `"paused":true`) {
		t.Fatalf("paused event: %+v", ev)
	}
	// The payload is what frontend/src/api/stream.ts reads: {type, data, id}.
	b, _ := json.Marshal(ev)
	var wire map[string]any
	json.Unmarshal(b, &wire)
	if _, ok := wire["data"].(map[string]any); !ok || wire["type"] != "scouts.paused" || wire["id"] == nil {
		t.Fatalf("wire form %s", b)
	}

	// The API goes away; meanwhile something happens.
	a.stop()
	next(t, events, EventStreamState, isState("down"))
	if err := a.core.SetPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	a.serve()
	next(t, events, EventStreamState, isState("open"))
	next(t, events, EventStream, isType("hello"))
	missed := next(t, events, EventStream, isType("scouts.paused")).data.(Message)
	if !strings.Contains(string(missed.Data), `"paused":false`) || missed.ID <= ev.ID {
		t.Fatalf("the event published while down was not replayed after %d: %+v", ev.ID, missed)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Bridge did not return when its context ended")
	}
}

func TestViews(t *testing.T) {
	for _, v := range []string{"scouts", "inbox", "tasks"} {
		if !validView(v) {
			t.Errorf("%q refused", v)
		}
	}
	for _, v := range []string{"", "x';alert(1)//", "Scouts", strings.Repeat("a", 40)} {
		if validView(v) {
			t.Errorf("%q accepted", v)
		}
	}
	if v := viewArg([]string{"window", "--data", "/d", "--view", "scouts"}); v != "scouts" {
		t.Errorf("viewArg: %q", v)
	}
	if v := viewArg([]string{"--view=tasks"}); v != "tasks" {
		t.Errorf("viewArg=: %q", v)
	}
	if instanceID("/a") == instanceID("/b") || instanceID("/a") != instanceID("/a/") {
		t.Error("instance ids must differ per data directory and ignore a trailing slash")
	}
}
