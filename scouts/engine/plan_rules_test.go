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

// ruleSet proposes actions for every item.
type ruleSet struct{ out scouts.RuleOutcome }

func (r ruleSet) Match(context.Context, scouts.ItemMetadata) (*scouts.RuleOutcome, error) {
	o := r.out
	return &o, nil
}

func TestRuleActionsRunWithoutApprovalOnlyWhenAllowed(t *testing.T) {
	ctx := context.Background()
	rules := ruleSet{scouts.RuleOutcome{RuleID: "receipts", Verdict: scouts.RuleShow, Why: "test", Actions: []scouts.RuleAction{
		{Action: "gmail.label", Params: json.RawMessage(`{"label":"Receipts"}`)},
		{Action: "gmail.trash"},
		{Action: "webhook.post", Params: json.RawMessage(`{"url":"https://example.com/hook"}`)},
	}}}
	h := newPlanHarness(t, true, func(cfg *engine.Config) {
		cfg.Rules = func(context.Context, scouts.Scout) (scouts.RuleSet, error) { return rules, nil }
	})
	if err := h.db.SetPolicies(ctx, []engine.PolicyChange{
		{Action: "gmail.label", Mode: actions.Allow, At: *h.now.Load()},
		{Action: "gmail.trash", Mode: actions.Deny, At: *h.now.Load()},
	}); err != nil {
		t.Fatal(err)
	}
	h.src.add("m1", "Receipt")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	// The allowed label ran on arrival, recorded as the policy's doing.
	r := h.waitAction(s.ID, 1, engine.ActionDone)
	if r.Action != "gmail.label" || r.Phase != engine.PhaseArrival || r.By != "policy" || r.Origin != "rule:receipts" || r.ModeSource != actions.SourceGlobal {
		t.Fatalf("%+v", r)
	}
	runs, _ := h.db.ActionRuns(ctx, s.ID)
	if len(runs) != 1 {
		t.Fatalf("ran on arrival: %+v", runs)
	}
	evs := h.audit(s.TraceID)
	checkActionAudit(t, evs)
	var denied bool
	for _, e := range evs {
		denied = denied || (e.Type == scouts.AuditActionDenied && e.Refs["action"] == "gmail.trash")
	}
	if !denied {
		t.Error("the denied trash is not on the trail")
	}
	// The webhook needs approval: it waits on the card; the label that
	// ran is not proposed again.
	plan, _ := h.engine.Plan(ctx, s.ID, "")
	want := []string{
		"note.create require_approval/inferred enabled=true kind",
		"gmail.archive require_approval/inferred enabled=true default",
		"gmail.trash deny/global enabled=false rule:receipts",
		"webhook.post require_approval/inferred enabled=true rule:receipts",
	}
	if got := steps(plan); !slices.Equal(got, want) {
		t.Fatalf("plan %q, want %q", got, want)
	}
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatal(err)
	}
	h.waitAction(s.ID, 4, engine.ActionDone)
	runs, _ = h.db.ActionRuns(ctx, s.ID)
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%d %s %s %s", r.N, r.Action, r.Phase, r.State))
	}
	if !slices.Equal(got, []string{"1 gmail.label arrival done", "2 note.create approval done", "3 gmail.archive approval done", "4 webhook.post approval done",
		"5 entity.fill_body approval done"}) {
		t.Fatalf("actions %q", got)
	}
}
