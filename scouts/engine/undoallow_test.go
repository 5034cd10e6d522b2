package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// Undoing "approve and always allow" takes back the overrides it wrote:
// one the approval created is removed, one it replaced is put back, and
// the card's trail says so.
func TestUndoTakesBackWhatAlwaysAllowWrote(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.addKind("m1", "One", scouts.EntityTask)
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	// The archive needed approval by the scout's own override, the task by
	// its risk.
	if err := h.engine.SetPolicies(ctx, []engine.PolicyChange{{ScoutID: h.scout.ID, Action: "gmail.archive", Mode: actions.RequireApproval}}, "test"); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Second)
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Always: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.engine.Resolve(ctx, h.scout.ID, "task.create"); got.Mode != actions.Allow {
		t.Fatalf("after approve and always allow, task.create resolves to %+v", got)
	}
	h.advance(time.Second)
	if _, err := h.engine.Undo(ctx, s.ID, "test"); err != nil {
		t.Fatal(err)
	}
	for action, want := range map[string]actions.Resolution{
		"task.create":   {Mode: actions.RequireApproval, Source: actions.SourceInferred},
		"gmail.archive": {Mode: actions.RequireApproval, Source: actions.SourceScout},
	} {
		if got, _ := h.engine.Resolve(ctx, h.scout.ID, action); got != want {
			t.Errorf("after undo, %s resolves to %+v, want %+v", action, got, want)
		}
	}
	var undone []string
	for _, e := range h.audit(s.TraceID) {
		if e.Type == scouts.AuditPolicyChanged && e.Refs["actor"] == "test" {
			undone = append(undone, e.Refs["action"]+": "+e.Summary)
		}
	}
	if len(undone) != 2 || !strings.Contains(strings.Join(undone, "\n"), "no longer always allowed") ||
		!strings.Contains(strings.Join(undone, "\n"), "back to require_approval") {
		t.Errorf("the undo's trail says of the policies: %q", undone)
	}
	checkActionAudit(t, h.audit(s.TraceID))
	// A new mail proposed as a task waits for approval again.
	h.src.addKind("m2", "Two", scouts.EntityTask)
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if m2, _ := h.db.SuggestionByRef(ctx, h.scout.ID, "m2"); m2.Status != scouts.StatusPending {
		t.Fatalf("after the undo, m2 is %s", m2.Status)
	}
}

// An override changed after "approve and always allow" is the person's:
// undoing the approval leaves it, and the trail says why.
func TestUndoLeavesAnOverrideChangedSince(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.addKind("m1", "One", scouts.EntityTask)
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Always: true}); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Second)
	if err := h.engine.SetPolicies(ctx, []engine.PolicyChange{{ScoutID: h.scout.ID, Action: "gmail.archive", Mode: actions.Deny}}, "person"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.Undo(ctx, s.ID, "test"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.engine.Resolve(ctx, h.scout.ID, "gmail.archive"); got != (actions.Resolution{Mode: actions.Deny, Source: actions.SourceScout}) {
		t.Errorf("after undo, the archive the person denied resolves to %+v", got)
	}
	if got, _ := h.engine.Resolve(ctx, h.scout.ID, "task.create"); got.Mode != actions.RequireApproval {
		t.Errorf("after undo, task.create resolves to %+v", got)
	}
	found := false
	for _, e := range h.audit(s.TraceID) {
		found = found || (e.Type == scouts.AuditPolicyChanged && e.Refs["action"] == "gmail.archive" && e.Outcome == scouts.OutcomeSkipped &&
			strings.Contains(e.Summary, "set to deny since"))
	}
	if !found {
		t.Errorf("the trail does not say the changed override was left: %v", h.trail(s.TraceID))
	}
	checkActionAudit(t, h.audit(s.TraceID))
}
