package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// A plan's first webhook step runs on arrival; the label after it needs
// the card, so the second webhook step waits with it. The card must
// still propose that second webhook step: it is another step than the
// one that ran, though the action and the rule are the same.
func TestAHeldStepOfTheSameActionAsOneRunOnArrivalStaysOnTheCard(t *testing.T) {
	ctx := context.Background()
	rules := ruleSet{scouts.RuleOutcome{RuleID: "hooks", Verdict: scouts.RuleShow, Why: "test", Actions: []scouts.RuleAction{
		{Action: "webhook.post", Params: json.RawMessage(`{"url":"https://example.com/a"}`), Plan: true},
		{Action: "gmail.label", Params: json.RawMessage(`{"label":"Hooked"}`), Plan: true},
		{Action: "webhook.post", Params: json.RawMessage(`{"url":"https://example.com/b"}`), Plan: true},
	}}}
	h := newPlanHarness(t, true, func(cfg *engine.Config) {
		cfg.Rules = func(context.Context, scouts.Scout) (scouts.RuleSet, error) { return rules, nil }
	})
	if err := h.db.SetPolicies(ctx, []engine.PolicyChange{{Action: "webhook.post", Mode: actions.Allow, At: *h.now.Load()}}); err != nil {
		t.Fatal(err)
	}
	h.src.add("m1", "Order")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	if r := h.waitAction(s.ID, 1, engine.ActionDone); r.Action != "webhook.post" || r.Phase != engine.PhaseArrival {
		t.Fatalf("ran on arrival: %+v", r)
	}
	plan, err := h.engine.Plan(ctx, s.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"note.create require_approval/inferred enabled=true kind",
		"gmail.archive require_approval/inferred enabled=true default",
		"gmail.label require_approval/inferred enabled=true rule:hooks",
		"webhook.post allow/global enabled=true rule:hooks",
	}
	if got := steps(plan); !slices.Equal(got, want) {
		t.Fatalf("plan %q, want %q", got, want)
	}
	if p := plan.Proposed[3].Params; !json.Valid(p) || string(p) != `{"url":"https://example.com/b"}` {
		t.Fatalf("the held step proposed is %s, want the second webhook", p)
	}
	// Approved, the held steps wait for the one run on arrival: the
	// label for step 1, the second webhook for the label.
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatal(err)
	}
	runs, _ := h.db.ActionRuns(ctx, s.ID)
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%d %s after=%d", r.N, r.Action, r.After))
	}
	if want := []string{"1 webhook.post after=0", "2 note.create after=0", "3 gmail.archive after=0", "4 gmail.label after=1", "5 webhook.post after=4"}; !slices.Equal(got[:5], want) {
		t.Fatalf("recorded %q, want %q", got, want)
	}
}
