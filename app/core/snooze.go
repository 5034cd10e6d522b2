package core

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/cue"
)

// Events of snooze, published with the suggestion as data.
const (
	EventSuggestionSnoozed   = "suggestion.snoozed"
	EventSuggestionUnsnoozed = "suggestion.unsnoozed"
	// EventSuggestionReturned: a snoozed card's time came and it is back at
	// the top of the inbox; the tray announces it.
	EventSuggestionReturned = "suggestion.returned"
	// EventTaskSnoozed and EventTaskReturned carry the task: out of the
	// lists until its time, then back in them, announced.
	EventTaskSnoozed  = "task.snoozed"
	EventTaskReturned = "task.returned"
)

// SnoozeTask hides an open task from the lists of tasks until when (words
// or RFC 3339, as Snooze); it returns announced.
func (c *Core) SnoozeTask(ctx context.Context, id, when, actor string) (scouts.Entity, time.Time, error) {
	if actor == "" {
		actor = "user"
	}
	now := c.now()
	until, err := cue.When(when, now.In(time.Local))
	if err != nil {
		return scouts.Entity{}, time.Time{}, err
	}
	until = until.UTC().Truncate(time.Millisecond)
	e, err := c.DB.SnoozeTask(ctx, id, until, func(e scouts.Entity) []scouts.AuditEvent {
		return []scouts.AuditEvent{{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: "task.snoozed", Outcome: scouts.OutcomeOK,
			Summary: "Task snoozed by " + actor + " until " + until.In(time.Local).Format("Mon 2 Jan 15:04"),
			Refs:    map[string]string{"task_id": e.ID, "actor": actor, "until": until.Format(time.RFC3339)}, At: now}}
	})
	if err != nil {
		return e, time.Time{}, err
	}
	c.Bus.Publish(scouts.Event{Type: EventTaskSnoozed, Data: e})
	c.wakeSnooze()
	return e, until, nil
}

// Snooze puts a pending card in the Snoozed lane until when — words the
// person typed ("in 3 hours", "tomorrow morning", "next week", a date) or
// an RFC 3339 time, read in the agent's local time zone. It teaches the
// learner nothing.
func (c *Core) Snooze(ctx context.Context, id, when, actor string) (scouts.Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := c.now()
	until, err := cue.When(when, now.In(time.Local))
	if err != nil {
		return scouts.Suggestion{}, err
	}
	until = until.UTC().Truncate(time.Millisecond)
	s, err := c.DB.SnoozeSuggestion(ctx, id, until, now, func(s scouts.Suggestion) []scouts.AuditEvent {
		return []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMoved, Outcome: scouts.OutcomeOK,
			Summary: "Snoozed by " + actor + " until " + until.In(time.Local).Format("Mon 2 Jan 15:04") + "; the learner learns nothing from it",
			Refs: map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "from": string(s.Lane),
				"lane": string(scouts.LaneSnoozed), "until": until.Format(time.RFC3339)}, At: now}}
	})
	if err != nil {
		return s, err
	}
	c.Bus.Publish(scouts.Event{Type: EventSuggestionSnoozed, Data: s})
	c.wakeSnooze()
	return s, nil
}

// Unsnooze takes a snoozed card back to the lane it was snoozed from now.
func (c *Core) Unsnooze(ctx context.Context, id, actor string) (scouts.Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := c.now()
	s, changed, err := c.DB.UnsnoozeSuggestion(ctx, id, func(s scouts.Suggestion, to scouts.Lane) []scouts.AuditEvent {
		return []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMoved, Outcome: scouts.OutcomeOK,
			Summary: "Unsnoozed by " + actor + " before its time, back to " + string(to),
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "from": string(scouts.LaneSnoozed), "lane": string(to)}, At: now}}
	})
	if err != nil || !changed {
		return s, err
	}
	c.Bus.Publish(scouts.Event{Type: EventSuggestionUnsnoozed, Data: s})
	c.wakeSnooze()
	return s, nil
}

// ReturnSnoozed brings back every card and task whose snooze has ended,
// announcing each; the snooze loop calls it, and so may tests. It returns
// the cards.
func (c *Core) ReturnSnoozed(ctx context.Context) ([]scouts.Suggestion, error) {
	now := c.now()
	back, err := c.DB.ReturnSnoozed(ctx, now, func(s scouts.Suggestion) []scouts.AuditEvent {
		late := ""
		if now.Sub(s.SnoozedUntil) > time.Minute {
			late = " (the agent was not running at " + s.SnoozedUntil.In(time.Local).Format("Mon 2 Jan 15:04") + ")"
		}
		return []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMoved, Outcome: scouts.OutcomeOK,
			Summary: "Back from snooze to the top of the inbox" + late,
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": "snooze", "from": string(scouts.LaneSnoozed), "lane": string(scouts.LaneInbox)}, At: now}}
	})
	if err != nil {
		return nil, err
	}
	for _, s := range back {
		c.Bus.Publish(scouts.Event{Type: EventSuggestionReturned, Data: s})
	}
	tasks, err := c.DB.ReturnSnoozedTasks(ctx, now, func(e scouts.Entity) []scouts.AuditEvent {
		return []scouts.AuditEvent{{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: "task.returned", Outcome: scouts.OutcomeOK,
			Summary: "Task back from snooze", Refs: map[string]string{"task_id": e.ID, "actor": "snooze"}, At: now}}
	})
	if err != nil {
		return back, err
	}
	for _, e := range tasks {
		c.Bus.Publish(scouts.Event{Type: EventTaskReturned, Data: e})
	}
	return back, nil
}

func (c *Core) wakeSnooze() {
	select {
	case c.snoozeWake <- struct{}{}:
	default: // a wake is pending: it reads the new next time too
	}
}

// snoozeLoop returns snoozed cards when their time comes: at start (what
// came due while the agent was off), then on a timer set to the next
// snooze's end and reset whenever a snooze changes. It does not poll.
func (c *Core) snoozeLoop(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		if _, err := c.ReturnSnoozed(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("snooze: cannot return snoozed cards", "err", err)
		}
		wait := 24 * time.Hour // a clock change is met at least daily
		next, ok, err := c.DB.NextSnooze(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			c.log.Warn("snooze: next", "err", err)
			wait = time.Minute
		case ok:
			wait = min(wait, max(next.Sub(c.now()), 0))
		}
		t.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.snoozeWake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
	}
}
