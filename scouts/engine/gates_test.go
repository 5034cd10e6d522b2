package engine_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

func (h *planHarness) setGates(f func(*scouts.LearnSettings)) {
	h.t.Helper()
	st, err := h.db.LearnState(context.Background(), h.scout.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	f(&st.Settings)
	if err := h.db.SetLearnSettings(context.Background(), h.scout.ID, st.Settings); err != nil {
		h.t.Fatal(err)
	}
}

// TestTheSameMoveTooSoonIsBlocked: approving a card again right after an
// undo would archive its email a second time; the anti-flap gate blocks
// that attempt, says so on the card and the trail, and a retry once the
// cooldown is over runs it.
func TestTheSameMoveTooSoonIsBlocked(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.setGates(func(s *scouts.LearnSettings) { s.CooldownSeconds = 120 })
	h.src.add("m1", "One")
	h.start()
	s := h.suggestions(scouts.StatusPending)[0]
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	h.waitAction(s.ID, 2, engine.ActionDone)
	if _, err := h.engine.Undo(ctx, s.ID, "test"); err != nil {
		t.Fatal(err)
	}
	h.advance(40 * time.Second)
	if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	r := h.waitAction(s.ID, 5, engine.ActionFailed)
	if r.Action != actions.GmailArchive || r.LastError != "blocked: same gmail.archive 40 s ago (the scout's cooldown is 2m0s)" || h.exec.count(r.Key) != 0 {
		t.Fatalf("the second archive: %+v, ran %d times", r, h.exec.count(r.Key))
	}
	plan, err := h.engine.Plan(ctx, s.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(plan.Runs, func(x engine.ActionRun) bool { return x.N == 5 }); i < 0 || !plan.Runs[i].Failing() {
		t.Errorf("the plan does not show the block: %+v", plan.Runs)
	}
	if got := h.trail(s.TraceID); !slices.Contains(got, scouts.AuditActionBlocked) {
		t.Errorf("trail %v has no block", got)
	}
	checkActionAudit(t, h.audit(s.TraceID))

	h.advance(2 * time.Minute)
	if _, err := h.engine.RetryAction(ctx, s.ID, 5, "test"); err != nil {
		t.Fatal(err)
	}
	if r := h.waitAction(s.ID, 5, engine.ActionDone); h.exec.count(r.Key) != 1 {
		t.Fatalf("after the cooldown: %+v", r)
	}
}

// TestPostsPastTheHourlyCapAreBlocked: with a cap of two posts an hour,
// the third card's webhook.post is blocked and announced once per block
// (the core makes it one alarm); an hour later posts run again.
func TestPostsPastTheHourlyCapAreBlocked(t *testing.T) {
	ctx := context.Background()
	var blocks []scouts.ActionBlock
	h := newPlanHarness(t, true)
	h.setGates(func(s *scouts.LearnSettings) { s.NotifyPerHour = 2 })
	for _, ref := range []string{"m1", "m2", "m3"} {
		h.src.add(ref, "Card "+ref)
	}
	h.start()
	post := func(s scouts.Suggestion) {
		t.Helper()
		plan := []engine.PlanChoice{{Action: "task.create", Enabled: true},
			{Action: actions.WebhookPost, Params: json.RawMessage(`{"url":"https://hooks.example.com/in"}`), Enabled: true}}
		if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask, Plan: plan}); err != nil {
			t.Fatal(err)
		}
	}
	cards := h.suggestions(scouts.StatusPending)
	for _, s := range cards[:2] {
		post(s)
		h.waitAction(s.ID, 2, engine.ActionDone)
		h.advance(time.Minute)
	}
	post(cards[2])
	// The block is announced after it is stored: wait for the event.
	deadline := time.After(10 * time.Second)
	for len(blocks) == 0 {
		select {
		case ev := <-h.events:
			if b, ok := ev.Data.(scouts.ActionBlock); ok && ev.Type == scouts.EventActionBlocked {
				blocks = append(blocks, b)
			}
		case <-deadline:
			t.Fatal("no block announced")
		}
	}
	r := h.waitAction(cards[2].ID, 2, engine.ActionFailed)
	if !strings.HasPrefix(r.LastError, "blocked: 2 posts in the last hour") || h.exec.count(r.Key) != 0 {
		t.Fatalf("the third post: %+v", r)
	}
	if b := blocks[0]; b.Gate != scouts.GateStorm || b.ScoutID != h.scout.ID || b.Why != r.LastError {
		t.Errorf("announced %+v", b)
	}
	h.advance(time.Hour)
	if _, err := h.engine.RetryAction(ctx, cards[2].ID, 2, "test"); err != nil {
		t.Fatal(err)
	}
	h.waitAction(cards[2].ID, 2, engine.ActionDone)
}

// TestQuietHoursAskForApproval: an archive a policy allows needs approval
// while the scout's quiet hours last, and the plan says why.
func TestQuietHoursAskForApproval(t *testing.T) {
	ctx := context.Background()
	h := newPlanHarness(t, true)
	h.src.add("m1", "One")
	h.start()
	if err := h.engine.SetPolicies(ctx, []engine.PolicyChange{{Action: actions.GmailArchive, Mode: actions.Allow}}, "test"); err != nil {
		t.Fatal(err)
	}
	s := h.suggestions(scouts.StatusPending)[0]
	archive := func() engine.PlanStep {
		plan, err := h.engine.Plan(ctx, s.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(plan.Proposed, func(p engine.PlanStep) bool { return p.Action == actions.GmailArchive })
		if i < 0 {
			t.Fatalf("no archive in %+v", plan.Proposed)
		}
		return plan.Proposed[i]
	}
	if a := archive(); a.Mode != actions.Allow {
		t.Fatalf("outside quiet hours: %+v", a)
	}
	local := h.now.Load().In(time.Local)
	h.setGates(func(st *scouts.LearnSettings) {
		st.QuietStart, st.QuietEnd = local.Format("15:04"), local.Add(time.Hour).Format("15:04")
	})
	if a := archive(); a.Mode != actions.RequireApproval || a.Source != actions.SourceQuietHours {
		t.Fatalf("in quiet hours: %+v", a)
	}
}
