package scouts

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Approval is a person's decision to turn a suggestion into an entity.
type Approval struct {
	As EntityKind
	// Edits override the fields taken from the suggestion (title, body,
	// due date, …), as edited in the card's preview.
	Edits EntityPatch
	// Actor records who decided: "user" (default), "cli", "policy".
	Actor string
}

// Approve turns a pending suggestion into an entity of the requested kind.
// Approving again as the same kind returns the entity created the first
// time (created=false): a double click or a retried request never makes two.
func (e *Engine) Approve(ctx context.Context, id string, a Approval) (Entity, bool, error) {
	kind, err := ParseEntityKind(string(a.As))
	if err != nil {
		return Entity{}, false, err
	}
	actor := a.Actor
	if actor == "" {
		actor = "user"
	}
	cur, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return Entity{}, false, err
	}
	// Read the source before the write transaction, and only for a pending
	// suggestion, so a slow or absent source never holds the writer.
	var content *ItemContent
	var contentNote string
	if cur.Status == StatusPending {
		content, contentNote = e.fetchForApproval(ctx, cur)
	}
	now := e.cfg.Now()
	sug, ent, created, err := e.cfg.Store.ApproveSuggestion(ctx, id, kind, actor, now, func(s Suggestion) (Entity, []AuditEvent, error) {
		body := s.Excerpt
		if content != nil && content.Text != "" {
			body = clip(content.Text, MaxBodyBytes)
		}
		ent := Entity{Kind: kind, ID: NewEntityID(kind), Title: s.Title, Body: body,
			SourceSuggestionID: s.ID, CreatedAt: now, UpdatedAt: now}
		ent = s.Assessment.proposedFields(kind).Apply(ent)
		ent = a.Edits.Apply(ent)
		if err := ent.Validate(); err != nil {
			return Entity{}, nil, err
		}
		refs := map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor}
		summary := fmt.Sprintf("Approved as %s by %s", kind, actor)
		if kind != s.ProposedKind {
			summary += fmt.Sprintf(" (proposed: %s)", s.ProposedKind)
		}
		events := []AuditEvent{{TraceID: s.TraceID, Stage: StageDecision, Type: AuditApproved, Outcome: OutcomeOK, Summary: summary, Refs: refs, At: now}}
		if contentNote != "" {
			events = append(events, AuditEvent{TraceID: s.TraceID, Stage: StageExecute, Type: AuditItemNote, Outcome: OutcomeOK, Summary: contentNote, Refs: refs, At: now})
		}
		events = append(events, AuditEvent{TraceID: s.TraceID, Stage: StageExecute, Type: AuditEntityCreated, Outcome: OutcomeOK,
			Summary: fmt.Sprintf("Created %s %q", kind, ent.Title),
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "entity_id": ent.ID, "entity_kind": string(kind)}, At: now})
		return ent, events, nil
	})
	if err != nil {
		return Entity{}, false, err
	}
	if created {
		e.emit(Event{Type: EventSuggestionResolved, Data: sug})
		e.emit(Event{Type: EventEntityCreated, Data: ent})
	}
	return ent, created, nil
}

// fetchForApproval reads the item's text so that the entity gets the whole
// of it rather than the card's excerpt. It never fails the approval: when
// the source is unreachable it says so and the excerpt is used.
func (e *Engine) fetchForApproval(ctx context.Context, s Suggestion) (*ItemContent, string) {
	if body, ok := storedBody(s); ok {
		return &ItemContent{Text: body, ContentType: "text/plain"}, ""
	}
	conn := e.connector(s.ScoutID)
	if conn == nil {
		return nil, ""
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.ContentTimeout)
	defer cancel()
	c, err := conn.FetchContent(ctx, s.SourceRef)
	if err != nil {
		return nil, "The source could not be read (" + err.Error() + "); the entity holds the card's excerpt"
	}
	if c.Truncated {
		return &c, "The source is longer than an entity holds; its text was cut"
	}
	return &c, ""
}

// Reject rejects a pending suggestion. Rejecting twice is harmless.
func (e *Engine) Reject(ctx context.Context, id, actor string) (Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	sug, changed, err := e.cfg.Store.RejectSuggestion(ctx, id, actor, now, func(s Suggestion) []AuditEvent {
		return []AuditEvent{{TraceID: s.TraceID, Stage: StageDecision, Type: AuditRejected, Outcome: OutcomeOK,
			Summary: "Rejected by " + actor, Refs: map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor}, At: now}}
	})
	if err != nil {
		return Suggestion{}, err
	}
	if changed {
		e.emit(Event{Type: EventSuggestionResolved, Data: sug})
	}
	return sug, nil
}

// Undo takes back the decision on a suggestion within the undo window: it
// is pending again and the entity its approval created is deleted.
func (e *Engine) Undo(ctx context.Context, id, actor string) (Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	sug, deleted, err := e.cfg.Store.UndoDecision(ctx, id,
		func(s Suggestion) error { return s.CanUndo(now, e.cfg.UndoWindow) },
		func(s Suggestion) []AuditEvent {
			refs := map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor}
			events := []AuditEvent{{TraceID: s.TraceID, Stage: StageDecision, Type: AuditUndone, Outcome: OutcomeOK,
				Summary: fmt.Sprintf("Undone by %s: the %s decision is withdrawn and the card is pending again", actor, s.Status), Refs: refs, At: now}}
			if s.Status == StatusApproved && s.ResolvedEntityID != "" {
				events = append(events, AuditEvent{TraceID: s.TraceID, Stage: StageExecute, Type: AuditEntityDeleted, Outcome: OutcomeOK,
					Summary: fmt.Sprintf("Deleted %s %s created by the undone approval", s.ResolvedKind, s.ResolvedEntityID),
					Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "entity_id": s.ResolvedEntityID, "actor": actor}, At: now})
			}
			return events
		})
	if err != nil {
		return Suggestion{}, err
	}
	if deleted != nil {
		e.emit(Event{Type: EventEntityDeleted, Data: map[string]string{"id": deleted.ID, "kind": string(deleted.Kind)}})
	}
	e.emit(Event{Type: EventSuggestionUndone, Data: sug})
	return sug, nil
}

// Content reads a suggestion's item from its source, on demand and
// transiently ("open the full email", "show the file"): nothing of it is
// stored.
func (e *Engine) Content(ctx context.Context, id string) (ItemContent, error) {
	s, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return ItemContent{}, err
	}
	if body, ok := storedBody(s); ok {
		return ItemContent{Text: body, ContentType: "text/plain"}, nil
	}
	conn := e.connector(s.ScoutID)
	if conn == nil {
		return ItemContent{}, Errorf(EUnavailable, "the scout of suggestion %s is not running, so its source cannot be read", id)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := conn.FetchContent(ctx, s.SourceRef)
	var skip *SkipError
	switch {
	case errors.As(err, &skip):
		return ItemContent{}, Errorf(ENotFound, "%s", skip.Reason)
	case ErrorCode(err) != EInternal && err != nil:
		return ItemContent{}, err
	case err != nil:
		return ItemContent{}, Errorf(EUnavailable, "the source could not be read: %v", err)
	}
	return c, nil
}

// SweepExpired expires pending suggestions past their deadline. They stay
// listed as expired: nothing disappears silently.
func (e *Engine) SweepExpired(ctx context.Context) (int, error) {
	expired, err := e.cfg.Store.ExpireSuggestions(ctx, e.cfg.Now())
	if err != nil {
		return 0, fmt.Errorf("engine: sweep expired: %w", err)
	}
	for _, s := range expired {
		e.emit(Event{Type: EventSuggestionResolved, Data: s})
	}
	return len(expired), nil
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
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// MarkSpam decides that a pending suggestion is spam: it is rejected into
// the Spam lane, and the learner learns it (undo takes it back).
func (e *Engine) MarkSpam(ctx context.Context, id, actor string) (Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	sug, changed, err := e.cfg.Store.MarkSpam(ctx, id, now, func(s Suggestion) []AuditEvent {
		return []AuditEvent{{TraceID: s.TraceID, Stage: StageDecision, Type: AuditMarkedSpam, Outcome: OutcomeOK,
			Summary: "Marked as spam by " + actor + "; the learner learns from it",
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "lane": string(LaneSpam)}, At: now}}
	})
	if err != nil {
		return Suggestion{}, err
	}
	if changed {
		e.emit(Event{Type: EventSuggestionResolved, Data: sug})
	}
	return sug, nil
}

// BringBack moves a pending suggestion from Screened or Spam to the inbox:
// the person says it belongs there, and the learner learns that.
func (e *Engine) BringBack(ctx context.Context, id, actor string) (Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	cur, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return Suggestion{}, err
	}
	rescue := RescueScreened
	if cur.Lane == LaneSpam {
		rescue = RescueSpam
	}
	now := e.cfg.Now()
	sug, changed, err := e.cfg.Store.MoveLane(ctx, id, LaneInbox, rescue, now, func(s Suggestion) []AuditEvent {
		return []AuditEvent{{TraceID: s.TraceID, Stage: StageDecision, Type: AuditMoved, Outcome: OutcomeOK,
			Summary: fmt.Sprintf("Brought back from %s to the inbox by %s; the learner learns that it belongs there", s.Lane, actor),
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "from": string(s.Lane), "lane": string(LaneInbox)}, At: now}}
	})
	if err != nil {
		return Suggestion{}, err
	}
	if changed {
		e.emit(Event{Type: EventSuggestionMoved, Data: sug})
	}
	return sug, nil
}

// Screen moves a pending suggestion out of the inbox into Screened without
// deciding it ("not now, and not like this"). It teaches nothing by
// itself: rejecting is the decision that teaches.
func (e *Engine) Screen(ctx context.Context, id, actor string) (Suggestion, error) {
	if actor == "" {
		actor = "user"
	}
	now := e.cfg.Now()
	sug, changed, err := e.cfg.Store.MoveLane(ctx, id, LaneScreened, RescueNone, now, func(s Suggestion) []AuditEvent {
		return []AuditEvent{{TraceID: s.TraceID, Stage: StageDecision, Type: AuditMoved, Outcome: OutcomeOK,
			Summary: fmt.Sprintf("Moved from %s to screened by %s", s.Lane, actor),
			Refs:    map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "from": string(s.Lane), "lane": string(LaneScreened)}, At: now}}
	})
	if err != nil {
		return Suggestion{}, err
	}
	if changed {
		e.emit(Event{Type: EventSuggestionMoved, Data: sug})
	}
	return sug, nil
}

// ResetLearner makes a scout's learner forget everything it was taught.
func (e *Engine) ResetLearner(ctx context.Context, scoutID, actor string) error {
	now := e.cfg.Now()
	if err := e.cfg.Store.ResetLearner(ctx, scoutID, now); err != nil {
		return err
	}
	return e.cfg.Store.AppendAudit(ctx, AuditEvent{TraceID: NewID("tr"), Stage: StageDecision, Type: "learner.reset", Outcome: OutcomeOK,
		Summary: "The learner of this scout was reset by " + actor + ": it forgot every decision it had learned",
		Refs:    map[string]string{"scout_id": scoutID, "actor": actor}, At: now})
}
