package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// The gates (docs/actions.md, "Gates") stand between a queued action and
// its attempt, whoever queued it — a policy on arrival, an approval, a
// retry — so that a scout whose rules fight each other, or whose source
// floods it, cannot make the outside world flap or drown in posts:
//
//   - anti-flap: the same action on the same item with the same params
//     done (or under way) within the scout's cooldown is blocked;
//   - storm: an outbound post past the scout's cap of posts in the last
//     hour is blocked, and the scout's alarm raised.
//
// A blocked action is failed with its reason ("blocked: same file.move 40 s
// ago"), which the card's plan shows; the person may retry it once the
// gate opens, or drop it. Quiet hours, the third gate, act earlier, on
// the plan (quietHours).

// outbound reports whether an action posts to the outside world: what the
// storm gate counts.
func outbound(action string) bool { return action == actions.WebhookPost }

// gateAttempt returns why a queued action may not be attempted now, and
// the gate that says so; "" when it may.
func (e *Engine) gateAttempt(ctx context.Context, r ActionRun, now time.Time) (why, gate string, err error) {
	if r.Action == FillBody || r.ScoutID == "" {
		return "", "", nil
	}
	st, err := e.cfg.Store.LearnState(ctx, r.ScoutID)
	if err != nil {
		return "", "", err
	}
	set := st.Settings
	window := set.Cooldown()
	if outbound(r.Action) {
		window = max(window, time.Hour)
	}
	recent, err := e.cfg.Store.ActionsRunSince(ctx, r.ScoutID, now.Add(-window))
	if err != nil {
		return "", "", err
	}
	posts := 0
	var flap *ActionRun
	for i, o := range recent {
		if o.Key == r.Key {
			continue
		}
		if o.Action == r.Action && o.SourceRef == r.SourceRef && !now.Add(-set.Cooldown()).After(o.UpdatedAt) && jsonEqual(o.Params, r.Params) {
			flap = &recent[i] // the latest such, as recent is oldest first
		}
		if outbound(o.Action) && outbound(r.Action) && !now.Add(-time.Hour).After(o.UpdatedAt) {
			posts++
		}
	}
	switch {
	case flap != nil:
		return fmt.Sprintf("blocked: same %s %s (the scout's cooldown is %s)", r.Action, scouts.Ago(now.Sub(flap.UpdatedAt)), set.Cooldown()), scouts.GateFlap, nil
	case outbound(r.Action) && posts >= set.StormCap():
		return fmt.Sprintf("blocked: %d posts in the last hour, the scout's cap (notify_per_hour %d)", posts, set.StormCap()), scouts.GateStorm, nil
	}
	return "", "", nil
}

// blockAction fails a queued action a gate blocked, says why on the card
// and the trail, and announces the block (the core raises the scout's
// alarm: one per scout and gate, however many it blocks).
func (e *Engine) blockAction(ctx context.Context, r ActionRun, why, gate string, now time.Time) {
	got, err := e.cfg.Store.UpdateActionRun(ctx, r.Key, func(r ActionRun) (ActionRun, []scouts.AuditEvent, error) {
		if r.State != ActionQueued {
			return r, nil, ErrNoChange
		}
		r.State, r.LastError, r.UpdatedAt = ActionFailed, why, now
		return r, []scouts.AuditEvent{{TraceID: r.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditActionBlocked, Outcome: scouts.OutcomeSkipped,
			Summary: fmt.Sprintf("%s %s. It will not be tried again by itself: retry it on the card once the gate opens, or drop it",
				capitalise(describeAction(r)), why),
			Refs: actionRefs(r, "gate", gate), At: now}}, nil
	})
	if errors.Is(err, ErrNoChange) {
		return
	}
	if err != nil {
		e.log.Error("outbox: record a gate's block", "key", r.Key, "err", err)
		return
	}
	e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: got})
	e.emit(scouts.Event{Type: scouts.EventActionBlocked, Data: scouts.ActionBlock{ScoutID: got.ScoutID, SuggestionID: got.SuggestionID,
		Action: got.Action, Gate: gate, Why: why}})
}

// quietHours raises an allowed write or danger action of the outbox to
// require_approval while the scout's quiet hours last (the desktop's
// local time): at night a rule's post or move waits on its card for the
// person instead of running by itself.
func (e *Engine) quietHours(scoutID string, d actions.Def, res actions.Resolution) actions.Resolution {
	if res.Mode != actions.Allow || d.Risk == actions.RiskRead || d.Where != actions.Outbox || scoutID == "" {
		return res
	}
	st, err := e.cfg.Store.LearnState(context.Background(), scoutID)
	if err != nil || !st.Settings.Quiet(e.cfg.Now().In(time.Local)) {
		return res
	}
	return actions.Resolution{Mode: actions.RequireApproval, Source: actions.SourceQuietHours}
}
