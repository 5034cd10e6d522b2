package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/redact"
)

// ApprovalRecord is what an approval writes with the suggestion's new
// status, in one transaction.
type ApprovalRecord struct {
	Entity  scouts.Entity
	Audit   []scouts.AuditEvent
	Actions []ActionRun
	// Policies are scout overrides written by "approve and always allow".
	Policies []PolicyChange
}

// UndoState is what an undo is decided from, read in its transaction.
type UndoState struct {
	Suggestion scouts.Suggestion
	Runs       []ActionRun
	// AlwaysAllowed are the scout overrides the approval being undone
	// wrote with "approve and always allow" (as its trail records them),
	// each with the override as it is now.
	AlwaysAllowed []AlwaysAllowed
}

// AlwaysAllowed is one override written by "approve and always allow".
type AlwaysAllowed struct {
	Action string
	// PreviousMode and PreviousSource are how the action resolved before
	// the approval; PreviousSource "scout" means the scout had an override
	// (PreviousMode) that the approval replaced.
	PreviousMode   actions.Mode
	PreviousSource actions.Source
	// Mode and UpdatedAt are the override now: Mode "" when it has been
	// removed since.
	Mode      actions.Mode
	UpdatedAt time.Time
}

// UndoRecord is what an undo writes besides the suggestion's status.
type UndoRecord struct {
	Actions  []ActionRun
	Policies []PolicyChange
	Audit    []scouts.AuditEvent
}

// PolicyChange is one mode set (or removed, Mode "") for an action:
// globally (ScoutID "") or for one scout.
type PolicyChange struct {
	ScoutID string
	Action  string
	Mode    actions.Mode
	By      string
	At      time.Time
}

// ErrNoChange, returned by an UpdateActionRun change function, leaves the
// action as it is.
var ErrNoChange = errors.New("no change")

// Outbox timing.
const (
	// maxAttempts is how many attempts a remote action gets before it is
	// failed for good (the person may retry it).
	maxAttempts = 10
	// actionTimeout bounds one attempt.
	actionTimeout = 60 * time.Second
)

// retryDelay is the wait after a failed attempt: 2 s doubling, at most
// 10 minutes.
func retryDelay(attempts int) time.Duration {
	d := 2 * time.Second
	for i := 1; i < attempts && d < 10*time.Minute; i++ {
		d *= 2
	}
	return min(d, 10*time.Minute)
}

// KickActions makes the outbox look for due actions now (after "Sync
// now", or a clock that tests move).
func (e *Engine) KickActions() { e.kickActions() }

func (e *Engine) kickActions() {
	select {
	case e.actionKick <- struct{}{}:
	default:
	}
}

// actionLoop runs queued remote actions, one at a time, until ctx ends.
// Attempts that a crash interrupted are queued again first.
func (e *Engine) actionLoop(ctx context.Context) {
	if err := e.recoverActions(ctx); err != nil && ctx.Err() == nil {
		e.log.Error("outbox: recover interrupted actions", "err", err)
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		e.runDueActions(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := time.Minute
		if next, err := e.cfg.Store.NextActionAt(ctx); err != nil {
			e.log.Error("outbox: next action", "err", err)
		} else if !next.IsZero() {
			wait = min(max(next.Sub(e.cfg.Now()), 0), wait)
		}
		t.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-e.actionKick:
			t.Stop()
		case <-t.C:
		}
	}
}

func (e *Engine) runDueActions(ctx context.Context) {
	for ctx.Err() == nil {
		due, err := e.cfg.Store.DueActions(ctx, e.cfg.Now(), 10)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Error("outbox: due actions", "err", err)
			}
			return
		}
		if len(due) == 0 {
			return
		}
		for _, r := range due {
			if ctx.Err() != nil {
				return
			}
			e.runAction(ctx, r)
		}
	}
}

// recoverActions queues again the actions whose attempt was running when
// the agent stopped: whether their effect happened is unknown, and every
// executor is idempotent per key, so running them again is safe.
func (e *Engine) recoverActions(ctx context.Context) error {
	running, err := e.cfg.Store.ActionRunsIn(ctx, ActionRunning)
	if err != nil {
		return err
	}
	for _, r := range running {
		now := e.cfg.Now()
		got, err := e.cfg.Store.UpdateActionRun(ctx, r.Key, func(r ActionRun) (ActionRun, []scouts.AuditEvent, error) {
			if r.State != ActionRunning {
				return r, nil, ErrNoChange
			}
			r.State, r.NextAt, r.UpdatedAt = ActionQueued, now, now
			return r, []scouts.AuditEvent{{TraceID: r.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditActionInterrupted, Outcome: scouts.OutcomeSkipped,
				Summary: fmt.Sprintf("Attempt %d of %s was interrupted (the agent stopped before it reported); it runs again with the same idempotency key",
					r.Attempts, describeAction(r)),
				Refs: actionRefs(r), At: now}}, nil
		})
		if err != nil && !errors.Is(err, ErrNoChange) {
			return err
		}
		if err == nil {
			e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: got})
		}
	}
	return nil
}

// runAction makes one attempt of a queued action: claim it (running,
// audited), run it, record the outcome (audited).
func (e *Engine) runAction(ctx context.Context, r ActionRun) {
	now := e.cfg.Now()
	if why, gate, err := e.gateAttempt(ctx, r, now); err != nil {
		e.log.Warn("outbox: gates", "key", r.Key, "err", err) // a read that failed blocks nothing
	} else if why != "" {
		e.blockAction(ctx, r, why, gate, now)
		return
	}
	claimed, err := e.cfg.Store.UpdateActionRun(ctx, r.Key, func(r ActionRun) (ActionRun, []scouts.AuditEvent, error) {
		if r.State != ActionQueued {
			return r, nil, ErrNoChange
		}
		r.State, r.Attempts, r.UpdatedAt = ActionRunning, r.Attempts+1, now
		return r, []scouts.AuditEvent{{TraceID: r.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditActionAttempt, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("Attempt %d of %s started (%s)", r.Attempts, describeAction(r), modeWords(r.Mode, r.ModeSource)),
			Refs:    actionRefs(r, "attempt", fmt.Sprint(r.Attempts)), At: now}}, nil
	})
	if errors.Is(err, ErrNoChange) {
		return
	}
	if err != nil {
		e.log.Error("outbox: claim", "key", r.Key, "err", err)
		return
	}
	e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: claimed})
	result, runErr := e.execute(ctx, claimed)
	if ctx.Err() != nil {
		// Stopping: whether it took effect is unknown. It stays running
		// and is queued again at the next start.
		return
	}
	e.finishAction(ctx, claimed, result, runErr)
}

func (e *Engine) execute(ctx context.Context, r ActionRun) (json.RawMessage, error) {
	if r.Action == FillBody {
		ctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		return e.fillBody(ctx, r)
	}
	x := e.executor(r.Action)
	if x == nil {
		return nil, scouts.Errorf(scouts.EInvalid, "this desktop cannot run %s", r.Action)
	}
	sug, err := e.cfg.Store.GetSuggestion(ctx, r.SuggestionID)
	if err != nil {
		return nil, err
	}
	sc, err := e.scout(ctx, r.ScoutID)
	if err != nil {
		return nil, err
	}
	if sc.Kind == "" {
		return nil, scouts.Errorf(scouts.ENotFound, "scout %s was deleted", r.ScoutID)
	}
	params, err := e.stepParams(ctx, r)
	if err != nil {
		return nil, err
	}
	inv := Invocation{Key: r.Key, Action: r.Action, Params: params, Scout: sc, Suggestion: sug, Attempt: r.Attempts}
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	// Checked again when it runs: the folder or the secret may have
	// changed since the plan was approved.
	if err := x.Check(ctx, inv); err != nil {
		return nil, err
	}
	return x.Execute(ctx, inv)
}

// permanent reports whether retrying cannot help: the remote side refused
// the request itself.
func permanent(err error) bool {
	switch scouts.ErrorCode(err) {
	case scouts.EInvalid, scouts.ENotFound, scouts.EConflict:
		return true
	}
	return false
}

func (e *Engine) finishAction(ctx context.Context, claimed ActionRun, result json.RawMessage, runErr error) {
	now := e.cfg.Now()
	var onFailure []PlanStep
	if runErr != nil {
		var err error
		if onFailure, err = e.onFailureSteps(context.WithoutCancel(ctx), claimed); err != nil {
			// Not recorded: the attempt stays running and runs again at
			// the next start, when the steps can be read.
			e.log.Error("outbox: the on_failure steps", "key", claimed.Key, "err", err)
			return
		}
	}
	var added []ActionRun
	got, err := e.cfg.Store.FinishActionRun(context.WithoutCancel(ctx), claimed.Key, func(r ActionRun, others []ActionRun) (ActionRun, []ActionRun, []scouts.AuditEvent, error) {
		r, audit, err := finishRun(r, result, runErr, now)
		if err != nil || r.State != ActionFailed || len(onFailure) == 0 {
			return r, nil, audit, err
		}
		// Failed for good: the plan's on_failure steps are added with
		// the failure, in its transaction (steps.go).
		r.UpdatedAt = now
		var more []scouts.AuditEvent
		added, more = queueOnFailure(r, others, onFailure)
		return r, added, append(audit, more...), nil
	})
	if errors.Is(err, ErrNoChange) {
		return
	}
	if err != nil {
		e.log.Error("outbox: record the outcome", "key", claimed.Key, "err", err)
		return
	}
	if runErr != nil {
		e.log.Warn("outbox: action failed", "key", got.Key, "action", got.Action, "state", got.State, "err", redact.String(runErr.Error()))
	}
	e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: got})
	for _, r := range added {
		e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: r})
	}
	if len(added) > 0 {
		e.kickActions()
	}
}

// finishRun records an attempt's outcome on its action.
func finishRun(r ActionRun, result json.RawMessage, runErr error, now time.Time) (ActionRun, []scouts.AuditEvent, error) {
	if r.State != ActionRunning && r.State != ActionCancelled {
		return r, nil, ErrNoChange
	}
	refs := actionRefs(r, "attempt", fmt.Sprint(r.Attempts))
	cancelled := r.State == ActionCancelled
	r.UpdatedAt = now
	if runErr == nil {
		r.State, r.LastError, r.Result = ActionDone, "", storedResult(result)
		summary := fmt.Sprintf("%s done (attempt %d)", capitalise(describeAction(r)), r.Attempts)
		if note := resultNote(r.Result); note != "" {
			summary += ": " + note
		}
		if cancelled {
			summary += "; it had started before the approval was undone"
		}
		return r, []scouts.AuditEvent{{TraceID: r.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditActionDone, Outcome: scouts.OutcomeOK,
			Summary: summary, Refs: refs, At: now}}, nil
	}
	msg := errorText(runErr)
	r.LastError = msg
	var summary string
	switch {
	case cancelled:
		summary = fmt.Sprintf("%s failed (attempt %d) after the approval was undone: %s; it stays cancelled", capitalise(describeAction(r)), r.Attempts, msg)
	case permanent(runErr) || r.Attempts >= maxAttempts:
		r.State = ActionFailed
		summary = fmt.Sprintf("%s failed (attempt %d): %s. It will not be tried again by itself: retry or drop it on the card",
			capitalise(describeAction(r)), r.Attempts, msg)
	default:
		r.State, r.NextAt = ActionQueued, now.Add(retryDelay(r.Attempts))
		summary = fmt.Sprintf("%s failed (attempt %d): %s; next attempt at %s", capitalise(describeAction(r)), r.Attempts, msg,
			r.NextAt.Format(time.RFC3339))
	}
	return r, []scouts.AuditEvent{{TraceID: r.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditActionFailed, Outcome: scouts.OutcomeError,
		Summary: summary, Refs: refs, At: now}}, nil
}

// resultNote is the note a step's result carries for its trail entry
// (a FillBody step that kept the excerpt says why).
func resultNote(result json.RawMessage) string {
	var r struct {
		Note string `json:"note"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.Note
}

// errorText is what the card and the trail say about a failure, with
// what looks like a credential struck (a remote side's error may quote
// the request).
func errorText(err error) string {
	if scouts.ErrorCode(err) != scouts.EInternal {
		return redact.String(scouts.ErrorMessage(err))
	}
	return clip(redact.String(err.Error()), 500)
}

// RetryAction queues a failing action (failed for good, or waiting to
// retry) for an attempt now, with a fresh budget of attempts.
func (e *Engine) RetryAction(ctx context.Context, suggestionID string, n int, actor string) (ActionRun, error) {
	return e.changeAction(ctx, suggestionID, n, func(r ActionRun, now time.Time) (ActionRun, scouts.AuditEvent, error) {
		if !r.Failing() {
			return r, scouts.AuditEvent{}, scouts.Errorf(scouts.EConflict, "action %d (%s) is %s: only a failing action can be retried", r.N, r.Action, r.State)
		}
		r.State, r.NextAt, r.Attempts = ActionQueued, now, 0
		return r, scouts.AuditEvent{Type: scouts.AuditActionRetried, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("%s: another attempt asked for by %s", capitalise(describeAction(r)), actor)}, nil
	}, actor)
}

// DropAction gives up on an action that has not run: it will never run,
// and neither will the later steps of its plan that wait for it (each
// dropped with it, saying why): nothing else would ever release them.
func (e *Engine) DropAction(ctx context.Context, suggestionID string, n int, actor string) (ActionRun, error) {
	if actor == "" {
		actor = "user"
	}
	if _, err := e.cfg.Store.GetSuggestion(ctx, suggestionID); err != nil {
		return ActionRun{}, err
	}
	now := e.cfg.Now()
	var changed []ActionRun
	got, err := e.cfg.Store.UpdateActionRuns(ctx, ActionKey(suggestionID, n), func(r ActionRun, all []ActionRun) ([]ActionRun, []scouts.AuditEvent, error) {
		if r.State != ActionQueued && r.State != ActionFailed {
			return nil, nil, scouts.Errorf(scouts.EConflict, "action %d (%s) is %s: only a queued or failed action can be dropped", r.N, r.Action, r.State)
		}
		summary := fmt.Sprintf("%s dropped by %s: it will not run", capitalise(describeAction(r)), actor)
		if r.LastError != "" {
			summary += " (last error: " + r.LastError + ")"
		}
		r.State, r.UpdatedAt = ActionDropped, now
		changed = append(changed[:0], r)
		audit := []scouts.AuditEvent{{TraceID: r.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionDropped, Outcome: scouts.OutcomeSkipped,
			Summary: summary, Refs: actionRefs(r, "actor", actor), At: now}}
		for _, w := range waitingOn(r.N, all) {
			w.State, w.UpdatedAt = ActionDropped, now
			changed = append(changed, w)
			audit = append(audit, scouts.AuditEvent{TraceID: w.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionDropped, Outcome: scouts.OutcomeSkipped,
				Summary: fmt.Sprintf("%s dropped: it waited for step %d (%s), which %s dropped", capitalise(describeAction(w)), r.N, r.Action, actor),
				Refs:    actionRefs(w, "actor", actor), At: now})
		}
		return changed, audit, nil
	})
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return ActionRun{}, scouts.Errorf(scouts.ENotFound, "suggestion %s has no action %d", suggestionID, n)
	}
	if err != nil {
		return ActionRun{}, err
	}
	for _, r := range changed {
		e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: r})
	}
	return got, nil
}

// waitingOn returns the queued actions of all that wait, directly or
// through other steps, for the action n.
func waitingOn(n int, all []ActionRun) []ActionRun {
	gone := map[int]bool{n: true}
	var out []ActionRun
	// all is ordered by N and a step waits only for an earlier one, so one
	// pass finds the whole chain.
	for _, a := range all {
		if a.After != 0 && gone[a.After] && a.State == ActionQueued {
			gone[a.N] = true
			out = append(out, a)
		}
	}
	return out
}

func (e *Engine) changeAction(ctx context.Context, suggestionID string, n int, change func(ActionRun, time.Time) (ActionRun, scouts.AuditEvent, error), actor string) (ActionRun, error) {
	if actor == "" {
		actor = "user"
	}
	if _, err := e.cfg.Store.GetSuggestion(ctx, suggestionID); err != nil {
		return ActionRun{}, err
	}
	now := e.cfg.Now()
	got, err := e.cfg.Store.UpdateActionRun(ctx, ActionKey(suggestionID, n), func(r ActionRun) (ActionRun, []scouts.AuditEvent, error) {
		r, ev, err := change(r, now)
		if err != nil {
			return r, nil, err
		}
		r.UpdatedAt = now
		ev.TraceID, ev.Stage, ev.At, ev.Refs = r.TraceID, scouts.StageDecision, now, actionRefs(r, "actor", actor)
		return r, []scouts.AuditEvent{ev}, nil
	})
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return ActionRun{}, scouts.Errorf(scouts.ENotFound, "suggestion %s has no action %d", suggestionID, n)
	}
	if err != nil {
		return ActionRun{}, err
	}
	e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: got})
	if got.State == ActionQueued {
		e.kickActions()
	}
	return got, nil
}

// undoActions settles a suggestion's actions when its approval is undone:
// what has not run is cancelled; what ran in the outside world stays done
// (undo does not reach into a mailbox or a folder), and the trail says so.
func undoActions(runs []ActionRun, actor string, now time.Time, audit []scouts.AuditEvent) ([]ActionRun, []scouts.AuditEvent) {
	var changed []ActionRun
	for _, r := range runs {
		if r.Phase != PhaseApproval {
			continue
		}
		switch r.State {
		case ActionDone:
			if actions.CreatedKind(r.Action) != "" || r.Action == FillBody {
				r.State = ActionUndone
				r.UpdatedAt = now
				changed = append(changed, r)
				continue
			}
			audit = append(audit, scouts.AuditEvent{TraceID: r.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditItemNote, Outcome: scouts.OutcomeOK,
				Summary: fmt.Sprintf("%s had already run; undo does not reach outside Scouts, so it stays done", capitalise(describeAction(r))),
				Refs:    actionRefs(r, "actor", actor), At: now})
		case ActionQueued, ActionRunning, ActionFailed:
			r.State, r.UpdatedAt = ActionCancelled, now
			changed = append(changed, r)
			audit = append(audit, scouts.AuditEvent{TraceID: r.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditActionCancelled, Outcome: scouts.OutcomeSkipped,
				Summary: fmt.Sprintf("%s cancelled: the approval was undone before it ran", capitalise(describeAction(r))),
				Refs:    actionRefs(r, "actor", actor), At: now})
		}
	}
	return changed, audit
}

// describeAction names an action with what matters of its params.
func describeAction(r ActionRun) string {
	var p map[string]any
	json.Unmarshal(r.Params, &p)
	switch r.Action {
	case actions.GmailArchive:
		return "archiving the email (gmail.archive)"
	case actions.GmailLabel:
		return fmt.Sprintf("labelling the email %q (gmail.label)", p["label"])
	case actions.GmailMarkRead:
		return "marking the email read (gmail.mark_read)"
	case actions.GmailTrash:
		return "moving the email to the Trash (gmail.trash)"
	case actions.GmailRestore:
		return "taking the email out of the Trash, back to the inbox (gmail.restore)"
	case actions.GmailUnsubscribe:
		return "unsubscribing from the email's mailing list (gmail.unsubscribe)"
	case actions.FileMove:
		return fmt.Sprintf("moving the file to %v (file.move)", p["to"])
	case actions.WebhookPost:
		return fmt.Sprintf("posting to %s (webhook.post)", redact.String(fmt.Sprint(p["url"])))
	case FillBody:
		return fmt.Sprintf("reading the item's whole text into the %v (%s)", p["kind"], FillBody)
	}
	return r.Action
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
