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
)

// Approval is a person's decision to turn a suggestion into an entity.
type Approval struct {
	As scouts.EntityKind
	// Edits override the fields taken from the suggestion (title, body,
	// due date, …), as edited in the card's preview.
	Edits scouts.EntityPatch
	// Actor records who decided: "user" (default), "cli", "policy".
	Actor string
	// Plan is the plan as the card showed it, with the person's toggles;
	// nil runs the proposed plan as proposed.
	Plan []PlanChoice
	// Always is "approve and always allow": every action of the plan that
	// needed this approval is allowed for the scout from now on (a scout
	// override, recorded on the trail and revocable in the policies).
	Always bool
}

// Approve turns a pending suggestion into an entity of the requested kind
// and records its plan: the entity is created and every remote action is
// queued in the outbox in the one transaction that records the decision,
// so a crash leaves either all of it or none. Approving again as the same
// kind returns the entity created the first time (created=false): a double
// click or a retried request never makes two, nor queues anything twice.
func (e *Engine) Approve(ctx context.Context, id string, a Approval) (scouts.Entity, bool, error) {
	kind, err := scouts.ParseEntityKind(string(a.As))
	if err != nil {
		return scouts.Entity{}, false, err
	}
	actor := a.Actor
	if actor == "" {
		actor = "user"
	}
	cur, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return scouts.Entity{}, false, err
	}
	// Check the plan before the write transaction, and only for a pending
	// suggestion. Nothing is read from the source here: the item's text
	// comes afterwards, from the outbox (fillbody.go), so the answer never
	// waits on Gmail or a disk.
	var body string
	var fill bool
	var steps, left []PlanStep
	if cur.Status == scouts.StatusPending {
		sc, pol, defs, err := e.planContext(ctx, cur.ScoutID)
		if err != nil {
			return scouts.Entity{}, false, err
		}
		runs, err := e.cfg.Store.ActionRuns(ctx, id)
		if err != nil {
			return scouts.Entity{}, false, err
		}
		steps, left, err = e.choosePlan(ctx, sc, cur, kind, a.Plan, e.proposePlan(sc, cur, kind, pol, defs, runs))
		if err != nil {
			return scouts.Entity{}, false, err
		}
		body, fill = e.fetchForApproval(cur)
		// A body the person wrote in the preview needs no source.
		fill = fill && a.Edits.Body == nil
	}
	now := e.cfg.Now()
	var rec ApprovalRecord
	sug, ent, created, err := e.cfg.Store.ApproveSuggestion(ctx, id, kind, actor, now, func(s scouts.Suggestion, existing []ActionRun) (ApprovalRecord, error) {
		if steps == nil {
			// It was decided when read and is pending again now (an undo
			// in between): its plan was never checked.
			return ApprovalRecord{}, scouts.Errorf(scouts.EConflict, "suggestion %s changed while being approved; try again", id)
		}
		ent := scouts.Entity{Kind: kind, ID: scouts.NewEntityID(kind), Title: s.Title, Body: body,
			SourceSuggestionID: s.ID, CreatedAt: now, UpdatedAt: now}
		ent = s.Assessment.ProposedFields(kind).Apply(ent)
		ent = a.Edits.Apply(ent)
		if err := ent.Validate(); err != nil {
			return ApprovalRecord{}, err
		}
		refs := map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor}
		summary := fmt.Sprintf("Approved as %s by %s", kind, actor)
		if kind != s.ProposedKind {
			summary += fmt.Sprintf(" (proposed: %s)", s.ProposedKind)
		}
		if a.Always {
			summary += ", and always allowed for this scout"
		}
		rec = ApprovalRecord{Entity: ent}
		rec.Audit = []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditApproved, Outcome: scouts.OutcomeOK, Summary: summary, Refs: refs, At: now}}
		rec.Actions, rec.Audit = e.recordPlan(s, ent, steps, existing, actor, now, rec.Audit)
		if fill {
			rec.Actions, rec.Audit = queueFill(s, ent, existing, rec.Actions, actor, rec.Audit)
			rec.Entity.BodyPending = true
		}
		// One entry per action left out, each with the mode it would have
		// run under: the trail says what the person chose not to run, and
		// what would have allowed it.
		for _, st := range left {
			rec.Audit = append(rec.Audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionLeftOut, Outcome: scouts.OutcomeSkipped,
				Summary: "Left out of the plan by " + actor + ": " + st.Action,
				Refs: map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "action": st.Action,
					"mode": string(st.Mode), "mode_source": string(st.Source), "origin": st.Origin}, At: now})
		}
		if a.Always {
			rec.Policies, rec.Audit = alwaysAllow(s, steps, actor, now, rec.Audit)
		}
		return rec, nil
	})
	if err != nil {
		return scouts.Entity{}, false, err
	}
	if created {
		e.emit(scouts.Event{Type: scouts.EventSuggestionResolved, Data: sug})
		e.emit(scouts.Event{Type: scouts.EventEntityCreated, Data: ent})
		e.announce(rec)
		e.showAnswered(ctx, sug, actor)
	}
	return ent, created, nil
}

// showAnswered brings back to the inbox the sender's other cards that
// wait in Screened only because nobody answered it (docs/triage.md,
// "Senders nobody answers"): the person just did, by approving or
// rescuing one of its mails. Moving them teaches nothing, since the
// person decided none of them. The decision is already made: a failure
// here is logged, and the cards stay in Screened, where the person finds
// them.
func (e *Engine) showAnswered(ctx context.Context, s scouts.Suggestion, actor string) {
	addr := strings.ToLower(strings.TrimSpace(senderAddress(s.Sender)))
	if s.SourceType != scouts.KindGmail || !strings.Contains(addr, "@") {
		return
	}
	now := e.cfg.Now()
	moved, err := e.cfg.Store.ShowAnswered(ctx, s.ScoutID, addr, now, func(moved []scouts.Suggestion) []scouts.AuditEvent {
		var out []scouts.AuditEvent
		for _, c := range moved {
			out = append(out, scouts.AuditEvent{TraceID: c.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMoved, Outcome: scouts.OutcomeOK,
				Summary: fmt.Sprintf("Moved to the inbox: %s answered %s's mail (%q), so it no longer waits as unanswered", actor, addr, s.Title),
				Refs:    map[string]string{"scout_id": c.ScoutID, "suggestion_id": c.ID, "actor": actor, "answered": s.ID, "lane": string(scouts.LaneInbox)}, At: now})
		}
		return out
	})
	if err != nil {
		e.log.Warn("show an answered sender's held cards", "suggestion", s.ID, "err", err)
		return
	}
	for _, c := range moved {
		e.emit(scouts.Event{Type: scouts.EventSuggestionMoved, Data: c})
	}
}

// recordPlan turns the chosen steps into the suggestion's actions: the
// entity's (done, here) and the remote ones (queued), numbered after the
// ones it already has, each audited with its mode and where it came from.
func (e *Engine) recordPlan(s scouts.Suggestion, ent scouts.Entity, steps []PlanStep, existing []ActionRun, by string, now time.Time, audit []scouts.AuditEvent) ([]ActionRun, []scouts.AuditEvent) {
	n := 0
	for _, r := range existing {
		n = max(n, r.N)
	}
	var runs []ActionRun
	for _, st := range steps {
		n++
		r := ActionRun{SuggestionID: s.ID, N: n, Key: ActionKey(s.ID, n), TraceID: s.TraceID, ScoutID: s.ScoutID, SourceRef: s.SourceRef,
			Action: st.Action, Params: st.Params, Origin: st.Origin, Mode: st.Mode, ModeSource: st.Source, Phase: PhaseApproval, By: by,
			State: ActionQueued, NextAt: now, CreatedAt: now, UpdatedAt: now, Step: st.Step}
		if st.Where == actions.Local {
			r.State = ActionDone
			r.Attempts = 1
			r.Result, _ = json.Marshal(map[string]string{"entity_id": ent.ID, "kind": string(ent.Kind)})
			audit = append(audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditEntityCreated, Outcome: scouts.OutcomeOK,
				Summary: fmt.Sprintf("Created %s %q (%s; %s)", ent.Kind, ent.Title, st.Action, modeWords(st.Mode, st.Source)),
				Refs:    actionRefs(r, "entity_id", ent.ID, "entity_kind", string(ent.Kind), "actor", by), At: now})
		} else {
			audit = append(audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionQueued, Outcome: scouts.OutcomeOK,
				Summary: fmt.Sprintf("Queued %s (action %d), approved by %s; %s", describeAction(r), n, by, modeWords(st.Mode, st.Source)),
				Refs:    actionRefs(r, "actor", by), At: now})
		}
		runs = append(runs, r)
	}
	chainSteps(existing, runs)
	return runs, audit
}

// alwaysAllow writes "approve and always allow": each action of the plan
// that needed the approval is allowed for the scout from now on. Denied
// actions never reach here (an enabled denied action refuses the whole
// approval), so nothing denied is ever upgraded.
func alwaysAllow(s scouts.Suggestion, steps []PlanStep, actor string, now time.Time, audit []scouts.AuditEvent) ([]PolicyChange, []scouts.AuditEvent) {
	var out []PolicyChange
	for _, st := range steps {
		if st.Mode != actions.RequireApproval {
			continue
		}
		out = append(out, PolicyChange{ScoutID: s.ScoutID, Action: st.Action, Mode: actions.Allow, By: actor, At: now})
		audit = append(audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditPolicyChanged, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("%s is now always allowed for this scout (was %s), by %s with \"approve and always allow\"; undo it in Settings → Policies",
				st.Action, modeWords(st.Mode, st.Source), actor),
			Refs: map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "action": st.Action, "mode": string(actions.Allow),
				"mode_source": string(actions.SourceScout), "previous_mode": string(st.Mode), "previous_source": string(st.Source), "actor": actor}, At: now})
	}
	return out, audit
}

// announce publishes what a decision recorded beyond the suggestion: the
// actions queued (and wakes the outbox), the policies changed.
func (e *Engine) announce(rec ApprovalRecord) {
	queued := false
	for _, r := range rec.Actions {
		e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: r})
		queued = queued || r.State == ActionQueued
	}
	for _, p := range rec.Policies {
		e.emit(scouts.Event{Type: scouts.EventPolicyChanged, Data: p})
	}
	if queued {
		e.kickActions()
	}
}

// fetchForApproval says what an approval's entity starts with: the body
// kept with the suggestion, or the card's excerpt and fill=true when the
// item's text is to be read from its source afterwards (FillBody). It
// reads nothing, so that no source is ever on the approval's path.
func (e *Engine) fetchForApproval(s scouts.Suggestion) (body string, fill bool) {
	return bodyForApproval(s, e.connector(s.ScoutID) != nil)
}

// Reject rejects a pending suggestion. Rejecting twice is harmless.
func (e *Engine) Reject(ctx context.Context, id, actor string) (scouts.Suggestion, error) {
	return e.RejectWithNote(ctx, id, actor, "")
}

// MaxRejectNote caps the note a person gives with a rejection.
const MaxRejectNote = 2000

// RejectWithNote rejects a pending suggestion with the person's note (why,
// for whoever proposed it: an AI agent reads it back with get_decision),
// kept on the card's trail in the rejection's entry.
func (e *Engine) RejectWithNote(ctx context.Context, id, actor, note string) (scouts.Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	note = strings.TrimSpace(note)
	if len(note) > MaxRejectNote {
		return scouts.Suggestion{}, scouts.Errorf(scouts.EInvalid, "a rejection's note is longer than %d bytes", MaxRejectNote)
	}
	now := e.cfg.Now()
	sug, changed, err := e.cfg.Store.RejectSuggestion(ctx, id, actor, now, func(s scouts.Suggestion) []scouts.AuditEvent {
		refs := map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor}
		summary := "Rejected by " + actor
		if note != "" {
			refs["note"] = note
			summary += ": " + note
		}
		return []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditRejected, Outcome: scouts.OutcomeOK,
			Summary: summary, Refs: refs, At: now}}
	})
	if err != nil {
		return scouts.Suggestion{}, err
	}
	if changed {
		e.emit(scouts.Event{Type: scouts.EventSuggestionResolved, Data: sug})
	}
	return sug, nil
}

// Undo takes back the decision on a suggestion within the undo window: it
// is pending again, the entity its approval created is deleted, what has
// not run of its plan is cancelled, and the overrides its "approve and
// always allow" wrote are taken back.
func (e *Engine) Undo(ctx context.Context, id, actor string) (scouts.Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	var rec UndoRecord
	sug, deleted, err := e.cfg.Store.UndoDecision(ctx, id,
		func(s scouts.Suggestion) error { return s.CanUndo(now, e.cfg.UndoWindow) },
		func(st UndoState) UndoRecord {
			s := st.Suggestion
			refs := map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor}
			events := []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditUndone, Outcome: scouts.OutcomeOK,
				Summary: fmt.Sprintf("Undone by %s: the %s decision is withdrawn and the card is pending again", actor, s.Status), Refs: refs, At: now}}
			if s.Status == scouts.StatusApproved && s.ResolvedEntityID != "" {
				events = append(events, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditEntityDeleted, Outcome: scouts.OutcomeOK,
					Summary: fmt.Sprintf("Deleted %s %s created by the undone approval", s.ResolvedKind, s.ResolvedEntityID),
					Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "entity_id": s.ResolvedEntityID, "actor": actor}, At: now})
			}
			rec.Actions, events = undoActions(st.Runs, actor, now, events)
			rec.Policies, rec.Audit = undoAlwaysAllow(s, st.AlwaysAllowed, actor, now, events)
			return rec
		})
	if err != nil {
		return scouts.Suggestion{}, err
	}
	if deleted != nil {
		e.emit(scouts.Event{Type: scouts.EventEntityDeleted, Data: map[string]string{"id": deleted.ID, "kind": string(deleted.Kind)}})
	}
	for _, r := range rec.Actions {
		e.emit(scouts.Event{Type: scouts.EventActionUpdated, Data: r})
	}
	for _, p := range rec.Policies {
		e.emit(scouts.Event{Type: scouts.EventPolicyChanged, Data: p})
	}
	e.emit(scouts.Event{Type: scouts.EventSuggestionUndone, Data: sug})
	return sug, nil
}

// undoAlwaysAllow takes back the overrides an undone "approve and always
// allow" wrote: each is put back as it was before (removed, or the scout's
// earlier override restored) when it is still the one the approval wrote.
// One changed or removed since is the person's, and stays as it is; the
// trail says which.
func undoAlwaysAllow(s scouts.Suggestion, written []AlwaysAllowed, actor string, now time.Time, audit []scouts.AuditEvent) ([]PolicyChange, []scouts.AuditEvent) {
	var out []PolicyChange
	for _, w := range written {
		refs := map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "action": w.Action, "actor": actor,
			"mode": string(w.Mode), "mode_source": string(actions.SourceScout)}
		if w.Mode != actions.Allow || !w.UpdatedAt.Equal(s.ResolvedAt.Truncate(time.Millisecond)) {
			since := "removed"
			if w.Mode != "" {
				since = "set to " + string(w.Mode)
			}
			audit = append(audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditPolicyChanged, Outcome: scouts.OutcomeSkipped,
				Summary: fmt.Sprintf("%s stays as it is for this scout: the override \"approve and always allow\" wrote has been %s since, so undo leaves it", w.Action, since),
				Refs:    refs, At: now})
			continue
		}
		c := PolicyChange{ScoutID: s.ScoutID, Action: w.Action, By: actor, At: now}
		back := "no longer always allowed for this scout"
		if w.PreviousSource == actions.SourceScout {
			c.Mode = w.PreviousMode
			back = fmt.Sprintf("back to %s for this scout", w.PreviousMode)
		}
		// The mode the action resolves to again, as before the approval.
		refs["mode"], refs["mode_source"], refs["previous_mode"] = string(w.PreviousMode), string(w.PreviousSource), string(actions.Allow)
		out = append(out, c)
		audit = append(audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditPolicyChanged, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("%s is %s (was allow, by the undone \"approve and always allow\"), by %s", w.Action, back, actor),
			Refs:    refs, At: now})
	}
	return out, audit
}

// Content reads a suggestion's item from its source, on demand and
// transiently ("open the full email", "show the file"): nothing of it is
// stored.
func (e *Engine) Content(ctx context.Context, id string) (scouts.ItemContent, error) {
	s, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return scouts.ItemContent{}, err
	}
	if body, ok := storedBody(s); ok {
		e.opened(ctx, s)
		return scouts.ItemContent{Text: body, ContentType: "text/plain"}, nil
	}
	conn := e.connector(s.ScoutID)
	if conn == nil {
		return scouts.ItemContent{}, scouts.Errorf(scouts.EUnavailable, "the scout of suggestion %s is not running, so its source cannot be read", id)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := conn.FetchContent(ctx, s.SourceRef)
	var skip *scouts.SkipError
	switch {
	case errors.As(err, &skip):
		return scouts.ItemContent{}, scouts.Errorf(scouts.ENotFound, "%s", skip.Reason)
	case scouts.ErrorCode(err) != scouts.EInternal && err != nil:
		return scouts.ItemContent{}, err
	case err != nil:
		return scouts.ItemContent{}, scouts.Errorf(scouts.EUnavailable, "the source could not be read: %v", err)
	}
	e.opened(ctx, s)
	return c, nil
}

// opened records that the person read a card's content: a card opened and
// left where it is teaches nothing by silence. Failing to record it never
// withholds the content; it is logged.
func (e *Engine) opened(ctx context.Context, s scouts.Suggestion) {
	if !s.OpenedAt.IsZero() {
		return
	}
	if err := e.cfg.Store.MarkOpened(context.WithoutCancel(ctx), s.ID, e.cfg.Now()); err != nil {
		e.log.Warn("record that a card was opened", "suggestion", s.ID, "err", err)
	}
}

// SweepExpired expires pending suggestions past their deadline. They stay
// listed as expired: nothing disappears silently.
func (e *Engine) SweepExpired(ctx context.Context) (int, error) {
	expired, err := e.cfg.Store.ExpireSuggestions(ctx, e.cfg.Now())
	if err != nil {
		return 0, fmt.Errorf("engine: sweep expired: %w", err)
	}
	for _, s := range expired {
		e.emit(scouts.Event{Type: scouts.EventSuggestionResolved, Data: s})
	}
	return len(expired), nil
}

// ExpireItem expires the card of one of s's items because its source said
// the item expired (the relay kept it unacknowledged too long), auditing it
// with summary. An item that never arrived is first recorded from missing
// (its Ref names the item), so that its expired card says what was lost
// rather than nothing. A card already decided stays as it is (changed is
// false).
func (e *Engine) ExpireItem(ctx context.Context, s scouts.Scout, missing scouts.ItemRef, summary string) (scouts.Suggestion, bool, error) {
	sug, err := e.cfg.Store.SuggestionByRef(ctx, s.ID, missing.Ref)
	if scouts.ErrorCode(err) == scouts.ENotFound {
		if _, err := e.Ingest(ctx, s, []scouts.ItemRef{missing}); err != nil {
			return scouts.Suggestion{}, false, err
		}
		sug, err = e.cfg.Store.SuggestionByRef(ctx, s.ID, missing.Ref)
	}
	if err != nil {
		return scouts.Suggestion{}, false, fmt.Errorf("engine: expire %s: %w", missing.Ref, err)
	}
	got, changed, err := e.cfg.Store.ExpireSuggestion(ctx, sug.ID, e.cfg.Now(), "relay", summary)
	if err != nil {
		return scouts.Suggestion{}, false, fmt.Errorf("engine: expire %s: %w", missing.Ref, err)
	}
	if changed {
		e.emit(scouts.Event{Type: scouts.EventSuggestionResolved, Data: got})
	}
	return got, changed, nil
}

func (e *Engine) sweepLoop(ctx context.Context) {
	t := time.NewTicker(e.cfg.SweepInterval)
	defer t.Stop()
	for {
		if n, err := e.SweepExpired(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			e.log.Error("sweep expired suggestions", "err", err)
		} else if n > 0 {
			e.log.Info("expired suggestions", "count", n)
		}
		// Silence is settled on the same beat: the grace period counts in
		// days, so an hourly look is early enough.
		if n, err := e.SettleSilent(ctx, e.cfg.Now()); err != nil {
			if ctx.Err() != nil {
				return
			}
			e.log.Error("settle silent cards", "err", err)
		} else if n > 0 {
			e.log.Info("silence taught the learner", "cards", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// MarkSpam decides that a pending suggestion is spam: it is rejected into
// the Spam lane, and the learner learns it (undo takes it back).
func (e *Engine) MarkSpam(ctx context.Context, id, actor string) (scouts.Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	sug, changed, err := e.cfg.Store.MarkSpam(ctx, id, now, func(s scouts.Suggestion) []scouts.AuditEvent {
		return []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMarkedSpam, Outcome: scouts.OutcomeOK,
			Summary: "Marked as spam by " + actor + "; the learner learns from it",
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "lane": string(scouts.LaneSpam)}, At: now}}
	})
	if err != nil {
		return scouts.Suggestion{}, err
	}
	if changed {
		e.emit(scouts.Event{Type: scouts.EventSuggestionResolved, Data: sug})
	}
	return sug, nil
}

// BringBack moves a pending suggestion from Screened or Spam to the inbox:
// the person says it belongs there, and the learner learns that. A mail
// its scout moved to Gmail's Trash as spam is taken out of it again, by an
// action queued with the move (restore.go).
func (e *Engine) BringBack(ctx context.Context, id, actor string) (scouts.Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	cur, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return scouts.Suggestion{}, err
	}
	rescue := scouts.RescueScreened
	if cur.Lane == scouts.LaneSpam {
		rescue = scouts.RescueSpam
	}
	restore, err := e.restoreStep(ctx, cur)
	if err != nil {
		return scouts.Suggestion{}, err
	}
	now := e.cfg.Now()
	var rec LaneRecord
	sug, changed, err := e.cfg.Store.MoveLane(ctx, id, scouts.LaneInbox, rescue, now, func(s scouts.Suggestion, runs []ActionRun) LaneRecord {
		rec = LaneRecord{Audit: []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMoved, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("Brought back from %s to the inbox by %s; the learner learns that it belongs there", s.Lane, actor),
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "from": string(s.Lane), "lane": string(scouts.LaneInbox)}, At: now}}}
		e.queueRestore(s, runs, restore, actor, now, &rec)
		return rec
	})
	if err != nil {
		return scouts.Suggestion{}, err
	}
	if changed {
		e.emit(scouts.Event{Type: scouts.EventSuggestionMoved, Data: sug})
		e.announce(ApprovalRecord{Actions: rec.Actions})
		e.showAnswered(ctx, sug, actor)
	}
	return sug, nil
}

// Screen moves a pending suggestion out of the inbox into Screened without
// deciding it ("not now, and not like this"). It teaches nothing by
// itself: rejecting is the decision that teaches.
func (e *Engine) Screen(ctx context.Context, id, actor string) (scouts.Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	sug, changed, err := e.cfg.Store.MoveLane(ctx, id, scouts.LaneScreened, scouts.RescueNone, now, func(s scouts.Suggestion, _ []ActionRun) LaneRecord {
		return LaneRecord{Audit: []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditMoved, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("Moved from %s to screened by %s", s.Lane, actor),
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "from": string(s.Lane), "lane": string(scouts.LaneScreened)}, At: now}}}
	})
	if err != nil {
		return scouts.Suggestion{}, err
	}
	if changed {
		e.emit(scouts.Event{Type: scouts.EventSuggestionMoved, Data: sug})
	}
	return sug, nil
}

// ResetLearner makes a scout's learner forget everything it was taught.
func (e *Engine) ResetLearner(ctx context.Context, scoutID, actor string) error {
	now := e.cfg.Now()
	if err := e.cfg.Store.ResetLearner(ctx, scoutID, now); err != nil {
		return err
	}
	return e.cfg.Store.AppendAudit(ctx, scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: "learner.reset", Outcome: scouts.OutcomeOK,
		Summary: "The learner of this scout was reset by " + actor + ": it forgot every decision it had learned",
		Refs:    map[string]string{"scout_id": scoutID, "actor": actor}, At: now})
}
