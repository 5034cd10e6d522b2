package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// stepsReceiver is the far end of a plan's three steps: /ok accepts
// (after a first answer of 503, so that the first step is retried while
// the second must wait for it), /fail refuses (400: no retry helps), /alert (the on_failure step)
// accepts, but holds its first request until the test has killed the
// agent that sent it.
type stepsReceiver struct {
	mu      sync.Mutex
	oks     int
	failAt  []string // the "after" query of each /fail request
	alerts  map[string]int
	queries []string
	arrived chan struct{} // closed at the first /alert
	release chan struct{} // closed by the test after the kill
	once    sync.Once
}

func (s *stepsReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/ok":
		s.mu.Lock()
		s.oks++
		n := s.oks
		s.mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // retried, in a moment
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case "/fail":
		s.mu.Lock()
		s.failAt = append(s.failAt, r.URL.Query().Get("after"))
		s.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
	case "/alert":
		s.mu.Lock()
		s.alerts[r.Header.Get("Idempotency-Key")]++
		s.queries = append(s.queries, r.URL.RawQuery)
		s.mu.Unlock()
		first := false
		s.once.Do(func() { first = true; close(s.arrived) })
		if first {
			<-s.release
		}
		w.WriteHeader(http.StatusAccepted)
	}
}

// TestPlanStepsOnFailureOnceAcrossKill, over real processes (issue 20,
// item 2): a folder scout's rule is a plan of two webhook steps — the
// first names its output, the second reads it in its URL and is refused
// by the receiver — with an on_failure step that posts the run's failed
// step and error. The agent is SIGKILLed while the on_failure post is at
// the receiver; after a restart the on_failure step is tried again with
// the same key and done: one on_failure action, one Idempotency-Key at
// the receiver, the second step fed the first's result.
func TestPlanStepsOnFailureOnceAcrossKill(t *testing.T) {
	ctx := context.Background()
	home, dataDir := t.TempDir(), t.TempDir()
	rcv := &stepsReceiver{alerts: map[string]int{}, arrived: make(chan struct{}), release: make(chan struct{})}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	defer func() {
		select {
		case <-rcv.release:
		default:
			close(rcv.release)
		}
	}()
	a := startAgent(t, dataDir, home)

	dir := filepath.Join(home, "Plans")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Plans", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.client.AddRule(ctx, sc.ID, []byte(`{"id":"plan","when":{"name":{"exists":true}},
		"then":{"verdict":"show",
		"actions":[
			{"action":"webhook.post","params":{"url":"`+hook.URL+`/ok"},"output_as":"first"},
			{"action":"webhook.post","params":{"url":"`+hook.URL+`/fail?after={{.steps.first.status}}"}}],
		"on_failure":[
			{"action":"webhook.post","params":{"url":"`+hook.URL+`/alert?step={{.run.failed_step}}&file={{.name}}"}}]}}`), -1); err != nil {
		t.Fatal(err)
	}
	// on_failure inside on_failure is refused when the rule is saved.
	if _, err := a.client.AddRule(ctx, sc.ID, []byte(`{"id":"nested","when":{"name":{"exists":true}},"then":{"verdict":"show",
		"actions":[{"action":"webhook.post","params":{"url":"`+hook.URL+`/ok"}}],
		"on_failure":[{"action":"webhook.post","params":{"url":"`+hook.URL+`/alert"},"on_failure":[]}]}}`), -1); err == nil ||
		!strings.Contains(err.Error(), "cannot have its own on_failure") {
		t.Fatalf("on_failure inside on_failure: %v", err)
	}
	allow := "allow"
	if _, err := a.client.SetPolicies(ctx, apitype.PutPolicies{Global: map[string]*string{"webhook.post": &allow}}); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(tmp, []byte("A report\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "report.txt")); err != nil {
		t.Fatal(err)
	}
	card := cardsOf(t, a, sc.ID, 1)[0]

	<-rcv.arrived // the on_failure post is at the receiver, unanswered
	a.kill()
	close(rcv.release)
	a = startAgent(t, dataDir, home)

	posts := func() []apitype.PlanAction {
		p, err := a.client.Plan(ctx, card.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []apitype.PlanAction
		for _, x := range p.Actions {
			if x.Action == "webhook.post" && x.N != 0 {
				out = append(out, x)
			}
		}
		return out
	}
	waitOn(t, on(a.changed()), "the on_failure step done after the restart", func() bool {
		ps := posts()
		return len(ps) == 3 && ps[2].State == "done"
	}, func() string { return fmt.Sprintf("%+v", posts()) })

	ps := posts()
	if ps[0].State != "done" || ps[1].State != "failed" {
		t.Errorf("the main steps: %+v", ps)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.failAt) != 1 || rcv.failAt[0] != "202" {
		t.Errorf("the second step was sent after=%q, want the first step's status, once", rcv.failAt)
	}
	if len(rcv.alerts) != 1 {
		t.Fatalf("the on_failure step reached the receiver with keys %v, want one key", rcv.alerts)
	}
	for _, q := range rcv.queries {
		if q != "step=2:webhook.post&file=report.txt" {
			t.Errorf("the on_failure post's query %q, want the failed step and the file", q)
		}
	}
	trail, err := a.client.Audit(ctx, card.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	queued := 0
	for _, e := range trail {
		if e.Type == "action.queued" && e.Refs["failed_key"] != "" {
			queued++
			if !strings.Contains(e.Summary, "2:webhook.post") || !strings.Contains(e.Summary, "refused") {
				t.Errorf("the on_failure step's queueing says %q, want the failed step and its error", e.Summary)
			}
		}
	}
	if queued != 1 {
		t.Errorf("the on_failure step was queued %d times on the trail", queued)
	}
	t.Logf("the on_failure step was delivered %d times with one key (the kill cut the first off)", len(rcv.queries))
}
