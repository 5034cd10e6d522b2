package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// hookReceiver is the far end of webhook.post: it counts deliveries per
// Idempotency-Key, as a receiver that applies each key once would.
type hookReceiver struct {
	mu   sync.Mutex
	keys map[string]int
	sugs map[string]map[string]bool // suggestion id → keys it was posted with
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Suggestion struct {
			ID string `json:"id"`
		} `json:"suggestion"`
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	key := r.Header.Get("Idempotency-Key")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.keys[key]++
	if h.sugs[body.Suggestion.ID] == nil {
		h.sugs[body.Suggestion.ID] = map[string]bool{}
	}
	h.sugs[body.Suggestion.ID][key] = true
	w.WriteHeader(http.StatusAccepted)
}

// TestActionsRunExactlyOnceAcrossCrashes approves Gmail cards as tasks
// with "archive" ticked and a webhook.post in the plan, and SIGKILLs the
// agent at a random moment around each decision: just before it, while
// the decision commits, while the outbox calls Gmail or the receiver,
// just after. After a restart the person approves again (the approval may
// or may not have committed). Each card ends with one task, its email
// archived once in effect, one Idempotency-Key at the receiver, and a
// trail with the decision, the attempts and their results.
func TestActionsRunExactlyOnceAcrossCrashes(t *testing.T) {
	const runs = 20
	ctx := context.Background()
	w := startGmailWorld(t, "local", "")
	g := w.g
	rcv := &hookReceiver{keys: map[string]int{}, sugs: map[string]map[string]bool{}}
	hook := httptest.NewServer(rcv)
	defer hook.Close()

	var ids []string
	for i := range runs {
		id, _, err := g.gmail.Deliver(gmailUser, personalMail(100+i, "crash"))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	cards := waitGmailSuggestions(t, w.a, w.a.events(t), w.scout, ids)
	slices.SortFunc(cards, func(a, b apitype.Suggestion) int { return strings.Compare(a.ID, b.ID) })

	plan := []apitype.ApproveAction{
		{Action: "task.create", Enabled: true},
		{Action: "gmail.archive", Enabled: true},
		{Action: "webhook.post", Params: json.RawMessage(`{"url":"` + hook.URL + `/scouts"}`), Enabled: true},
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 10))
	seed := rng.Uint64()
	t.Logf("kill points from seed %d", seed)
	rng = rand.New(rand.NewPCG(seed, 10))
	answered := 0
	for i, card := range cards {
		a := w.a
		done := make(chan error, 1)
		go func() {
			_, err := a.client.Approve(ctx, card.ID, apitype.Approve{As: "task", Actions: plan})
			done <- err
		}()
		// A random point around the decision: the approval takes a few
		// milliseconds, its actions a few more. Not a wait for anything:
		// the kill lands at a random moment on purpose.
		time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
		a.kill()
		if err := <-done; err == nil {
			answered++ // else cut off by the kill, committed or not
		}

		w.a = startAgentEnv(t, a.dataDir, w.home, w.env, w.flags...)
		// The person sees the card again (or its result) and approves
		// again: once decided, this changes nothing.
		if _, err := w.a.client.Approve(ctx, card.ID, apitype.Approve{As: "task", Actions: plan}); err != nil {
			t.Fatalf("run %d: approving %s again: %v", i, card.ID, err)
		}
	}

	// Every card's actions finish (the last agent runs whatever the
	// crashes left queued or running).
	a := w.a
	for _, card := range cards {
		waitOn(t, on(a.changed()), "the actions of "+card.ID+" to be done", func() bool {
			p, err := a.client.Plan(ctx, card.ID, "")
			if err != nil {
				return false
			}
			// The three actions of the plan, and the engine's own step
			// that brings in the mail's text (entity.fill_body).
			n := 0
			for _, x := range p.Actions {
				if x.State == "done" {
					n++
				}
			}
			return n == len(p.Actions) && n == 4
		}, func() string {
			p, _ := a.client.Plan(ctx, card.ID, "")
			return fmt.Sprintf("plan of %s: %+v", card.ID, p)
		})
	}

	tasks, err := a.client.Entities(ctx, "task")
	if err != nil {
		t.Fatal(err)
	}
	bySource := map[string]int{}
	for _, e := range tasks {
		bySource[e.SourceSuggestionID]++
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	repeatedCalls, repeatedPosts, interrupted := 0, 0, 0
	for _, card := range cards {
		if bySource[card.ID] != 1 {
			t.Errorf("%s became %d tasks", card.ID, bySource[card.ID])
		}
		calls, _, removed := g.gmail.Modifications(gmailUser, card.SourceRef)
		labels, _ := g.gmail.Message(gmailUser, card.SourceRef)
		if removed["INBOX"] != 1 || slices.Contains(labels, "INBOX") {
			t.Errorf("%s: archived %d times in effect (labels now %v)", card.SourceRef, removed["INBOX"], labels)
		}
		repeatedCalls += calls - 1
		key := "act:" + card.ID + ":3"
		if keys := rcv.sugs[card.ID]; len(keys) != 1 || !keys[key] {
			t.Errorf("%s was posted with keys %v, want only %s", card.ID, keys, key)
		}
		repeatedPosts += rcv.keys[key] - 1

		trail, err := a.client.Audit(ctx, card.TraceID)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range trail {
			types = append(types, e.Type)
			if e.Refs["action"] != "" && (e.Refs["mode"] == "" || e.Refs["mode_source"] == "") {
				t.Errorf("%s: %s %q without its mode", card.ID, e.Type, e.Summary)
			}
		}
		for _, want := range []string{"suggestion.approved", "entity.created", "action.queued", "action.attempt", "action.done"} {
			if !slices.Contains(types, want) {
				t.Errorf("%s: trail %v has no %s", card.ID, types, want)
			}
		}
		interrupted += countOf(types, "action.interrupted")
		if n := countOf(types, "suggestion.approved"); n != 1 {
			t.Errorf("%s: %d approvals on the trail", card.ID, n)
		}
	}
	// What the crashes cost: repeated calls are the price of exactly once
	// in effect, never a second effect.
	t.Logf("%d runs: %d approvals answered before the kill, %d attempts interrupted, %d repeated Gmail modify calls, %d repeated webhook deliveries (same key)",
		runs, answered, interrupted, repeatedCalls, repeatedPosts)
	st, err := a.client.Status(ctx)
	if err != nil || st.FailingActions != 0 {
		t.Fatalf("status: %d failing actions, %v", st.FailingActions, err)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// The plan and the policies from the command line, on a Gmail card.
func TestCLIPlanApproveAndPolicies(t *testing.T) {
	ctx := context.Background()
	w := startGmailWorld(t, "local", "")
	id, _, err := w.g.gmail.Deliver(gmailUser, personalMail(1, "cli"))
	if err != nil {
		t.Fatal(err)
	}
	card := waitGmailSuggestions(t, w.a, w.a.events(t), w.scout, []string{id})[0]
	cli := func(args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, w.home, w.a.dataDir, args...)
		if code != 0 {
			t.Fatalf("scouts %s: code %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}

	out := cli("plan", card.ID, "--as", "task")
	if !strings.Contains(out, "Approving "+card.ID+" as a task will:") || !strings.Contains(out, "gmail.archive") ||
		!strings.Contains(out, "require_approval (inferred)") || strings.Contains(out, "gmail.label") {
		t.Fatalf("plan:\n%s", out)
	}
	cli("policies", "defaults", "--label", "Scouts")
	if out := cli("plan", card.ID); !strings.Contains(out, `{"label":"Scouts"}`) {
		t.Fatalf("plan with a default label:\n%s", out)
	}
	cli("policies", "set", "gmail.trash", "deny")
	_, errOut, code := runCLI(t, w.home, w.a.dataDir, "policies", "set", "--scout", w.scout, "gmail.trash", "allow")
	if code != 1 || !strings.Contains(errOut, "remove the global deny first") {
		t.Fatalf("lifting a global deny: code %d, %s", code, errOut)
	}
	if out := cli("policies", w.scout); !strings.Contains(out, "gmail.trash") || !strings.Contains(out, "deny") || !strings.Contains(out, `label "Scouts"`) {
		t.Fatalf("policies:\n%s", out)
	}

	out = cli("approve", card.ID, "--as", "task", "--archive", "--no-label")
	if !strings.Contains(out, "Approved "+card.ID+" → task") {
		t.Fatalf("approve:\n%s", out)
	}
	waitOn(t, on(w.g.gmail.Next), "the archive", func() bool {
		labels, _ := w.g.gmail.Message(gmailUser, id)
		return !slices.Contains(labels, "INBOX")
	})
	if _, added, _ := w.g.gmail.Modifications(gmailUser, id); len(added) != 0 {
		t.Errorf("--no-label, yet labels were added: %v", added)
	}
	out = cli("show", card.ID)
	if !strings.Contains(out, "gmail.archive") || !strings.Contains(out, "action.done") || strings.Contains(out, "gmail.label  ") {
		t.Fatalf("show:\n%s", out)
	}
	cli("policies", "rm", "gmail.trash")
	p, err := w.a.client.Policies(ctx, "")
	if err != nil || len(p.Global) != 0 {
		t.Fatalf("after rm: %+v %v", p, err)
	}
}
