package localapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localapi"
	"github.com/scouts-hq/scouts/scouts"
)

const token = "0123456789abcdef0123456789abcdef"

func newServer(t *testing.T) (*httptest.Server, *core.Core) {
	t.Helper()
	return newServerWith(t, core.Config{DataDir: t.TempDir(), Version: "test"})
}

func newServerWith(t *testing.T, cfg core.Config) (*httptest.Server, *core.Core) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := core.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	api := localapi.New(c, localapi.Options{Token: token})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(api.TCPHandler(l.Addr()))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(func() { srv.Close(); cancel(); c.Close() })
	return srv, c
}

func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, apitype.Error, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e apitype.Error
	if resp.StatusCode >= 300 {
		if err := json.Unmarshal(b, &e); err != nil || e.Error == "" || e.Code == "" {
			t.Fatalf("%s %s: error body %q is not {code, error}", method, path, b)
		}
	}
	return resp.StatusCode, e, b
}

func TestBadInputGetsClearErrors(t *testing.T) {
	srv, _ := newServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := []struct {
		name, method, path, body string
		status                   int
		code, mention            string
	}{
		{"not JSON", "POST", "/api/v1/scouts", "{", 400, "invalid", "not valid JSON"},
		{"unknown field", "POST", "/api/v1/scouts", `{"kind":"folder","path":"` + dir + `","colour":"red"}`, 400, "invalid", "colour"},
		{"trailing data", "POST", "/api/v1/scouts", `{"kind":"folder","path":"` + dir + `"} {}`, 400, "invalid", "after the JSON"},
		{"unknown kind", "POST", "/api/v1/scouts", `{"kind":"fax"}`, 400, "invalid", "fax"},
		{"relative path", "POST", "/api/v1/scouts", `{"kind":"folder","path":"relative/dir"}`, 400, "invalid", "absolute"},
		{"missing folder", "POST", "/api/v1/scouts", `{"kind":"folder","path":"` + dir + `/nope"}`, 400, "invalid", "does not exist"},
		{"a file, not a folder", "POST", "/api/v1/scouts", `{"kind":"folder","path":"` + file + `"}`, 400, "invalid", "is a file, not a folder"},
		{"bad glob", "POST", "/api/v1/scouts", `{"kind":"folder","path":"` + dir + `","include":["[a-"]}`, 400, "invalid", "[a-"},
		{"huge body", "POST", "/api/v1/tasks", `{"title":"` + strings.Repeat("x", 3<<20) + `"}`, 400, "invalid", "larger than"},
		{"empty title", "POST", "/api/v1/tasks", `{"title":"  "}`, 400, "invalid", "title is required"},
		{"bad date", "POST", "/api/v1/tasks", `{"title":"x","due":"next tuesday"}`, 400, "invalid", "next tuesday"},
		{"event fields on a note", "POST", "/api/v1/notes", `{"title":"x","starts_at":"2026-01-01"}`, 400, "invalid", "only events"},
		{"missing suggestion", "POST", "/api/v1/suggestions/sg_nope/approve", `{"as":"task"}`, 404, "not_found", "sg_nope"},
		{"bad kind", "POST", "/api/v1/suggestions/sg_nope/approve", `{"as":"memo"}`, 400, "invalid", "memo"},
		{"bad status filter", "GET", "/api/v1/suggestions?status=maybe", "", 400, "invalid", "maybe"},
		{"missing task", "PATCH", "/api/v1/tasks/tk_nope", `{"done":true}`, 404, "not_found", "tk_nope"},
		{"unknown endpoint", "GET", "/api/v1/nothing", "", 404, "not_found", "/api/v1/nothing"},
		{"bad Last-Event-ID", "GET", "/api/v1/stream?last_event_id=abc", "", 400, "invalid", "abc"},
	}
	for _, c := range cases {
		status, e, _ := call(t, srv, c.method, c.path, c.body)
		if status != c.status || e.Code != c.code || !strings.Contains(e.Error, c.mention) {
			t.Errorf("%s: %d %q %q, want %d %q mentioning %q", c.name, status, e.Code, e.Error, c.status, c.code, c.mention)
		}
	}
	// Nothing of the above created anything.
	status, _, body := call(t, srv, "GET", "/api/v1/status", "")
	var st apitype.Status
	json.Unmarshal(body, &st)
	if status != 200 || st.ScoutsTotal != 0 || st.Entities["task"] != 0 || st.Entities["note"] != 0 {
		t.Fatalf("bad requests changed state: %s", body)
	}
}

func TestEntityLifecycle(t *testing.T) {
	srv, _ := newServer(t)
	status, _, body := call(t, srv, "POST", "/api/v1/projects", `{"title":"Garden"}`)
	if status != 201 {
		t.Fatalf("create project: %d %s", status, body)
	}
	var p apitype.Entity
	json.Unmarshal(body, &p)
	status, _, body = call(t, srv, "POST", "/api/v1/tasks", `{"title":"Buy seeds","due":"2026-03-01","project_id":"`+p.ID+`"}`)
	if status != 201 {
		t.Fatalf("create task: %d %s", status, body)
	}
	var task apitype.Entity
	json.Unmarshal(body, &task)
	if task.Due == nil || task.ProjectID != p.ID || task.Done == nil || *task.Done {
		t.Fatalf("task = %s", body)
	}
	status, e, _ := call(t, srv, "POST", "/api/v1/tasks", `{"title":"x","project_id":"pj_nope"}`)
	if status != 400 || !strings.Contains(e.Error, "does not exist") {
		t.Fatalf("task in a missing project: %d %q", status, e.Error)
	}
	status, _, body = call(t, srv, "PATCH", "/api/v1/tasks/"+task.ID, `{"done":true,"due":""}`)
	task = apitype.Entity{}
	json.Unmarshal(body, &task)
	if status != 200 || !*task.Done || task.Due != nil || task.Title != "Buy seeds" {
		t.Fatalf("patch: %d %s", status, body)
	}
	status, _, body = call(t, srv, "POST", "/api/v1/events", `{"title":"Talk","starts_at":"2026-03-01T10:00:00Z","ends_at":"2026-03-01T09:00:00Z"}`)
	if status != 400 || !strings.Contains(string(body), "ends before it starts") {
		t.Fatalf("event ending before it starts: %d %s", status, body)
	}
	if status, _, _ := call(t, srv, "DELETE", "/api/v1/tasks/"+task.ID, ""); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if status, _, _ := call(t, srv, "GET", "/api/v1/tasks/"+task.ID, ""); status != 404 {
		t.Fatalf("get deleted: %d", status)
	}
	status, _, body = call(t, srv, "GET", "/api/v1/tasks?done=true", "")
	if status != 200 || strings.TrimSpace(string(body)) != "[]" {
		t.Fatalf("list after delete: %d %s", status, body)
	}
}

// Resuming the stream replays what was missed; an unknown id gets reset.
func TestStreamResumesFromLastEventID(t *testing.T) {
	srv, c := newServer(t)
	for _, title := range []string{"one", "two", "three"} {
		call(t, srv, "POST", "/api/v1/notes", `{"title":"`+title+`"}`)
	}
	last := c.Bus.LastID()
	read := func(after string, n int) []string {
		resp := openStream(t, context.Background(), srv, after)
		defer resp.Body.Close()
		var types []string
		buf := make([]byte, 64<<10)
		acc := ""
		for len(types) < n {
			k, err := resp.Body.Read(buf)
			acc += string(buf[:k])
			types = types[:0]
			for _, line := range strings.Split(acc, "\n") {
				if ev, ok := strings.CutPrefix(line, "event: "); ok {
					types = append(types, ev)
				}
			}
			if err != nil {
				break
			}
		}
		return types
	}
	got := read(itoa(last-2), 3)
	if strings.Join(got, ",") != "hello,entity.created,entity.created" {
		t.Fatalf("resume after last-2: %v", got)
	}
	got = read("1", 2)
	if len(got) < 2 || got[0] != "hello" || got[1] != "reset" {
		t.Fatalf("resume from a forgotten id: %v", got)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// The stream's hello carries the id the events after it continue from,
// even when events are published while the stream opens: a client that
// resumes after hello's id must not skip the ones published meanwhile.
func TestStreamHelloIDPrecedesItsEvents(t *testing.T) {
	srv, c := newServer(t)
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
				c.Bus.Publish(scouts.Event{Type: "test.tick", Data: map[string]int{}})
			}
		}
	}()
	defer func() { close(stop); <-stopped }()
	resp := openStream(t, context.Background(), srv, "")
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var ids []int64
	for len(ids) < 2 && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, n)
		}
	}
	if len(ids) < 2 {
		t.Fatalf("stream ended after ids %v: %v", ids, sc.Err())
	}
	if ids[1] != ids[0]+1 {
		t.Fatalf("hello has id %d, the first event after it %d; want %d", ids[0], ids[1], ids[0]+1)
	}
}

// openStream opens the event stream, after the event lastID when it is
// not empty.
func openStream(t *testing.T, ctx context.Context, srv *httptest.Server, lastID string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
