package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// FillBody is the outbox step that gives an approved entity the whole text
// of its item. Approving never reads the source: reading a Gmail message
// (messages.get, format=full, then its HTML) was most of an approval's
// time and CPU, and a source that is slow or away held the answer. The
// entity is created with the card's excerpt and this step, queued in the
// decision's transaction like every remote action, reads the item
// afterwards and puts its text in. It is an engine step, not an action of
// the catalogue: no one chooses it, and no policy gates it.
const FillBody = "entity.fill_body"

// fillParams are a FillBody step's params.
type fillParams struct {
	EntityID string            `json:"entity_id"`
	Kind     scouts.EntityKind `json:"kind"`
	// Placeholder is the body the entity was created with: the step fills
	// the entity only while its body is still that, so a body the person
	// wrote in the meantime is never overwritten, and a step run again
	// after a crash changes nothing the second time.
	Placeholder string `json:"placeholder"`
}

// fillResult is what a FillBody step records as its result.
type fillResult struct {
	EntityID string `json:"entity_id"`
	Filled   bool   `json:"filled"`
	// Note says why the entity kept its placeholder, or that the text was
	// cut; the step's trail entry repeats it.
	Note string `json:"note,omitempty"`
}

// textFetcher is implemented by connectors that can read an item's text
// alone, skipping what only a reader's view needs (a mail's sanitised
// HTML, half the cost of reading one).
type textFetcher interface {
	FetchText(ctx context.Context, ref string) (scouts.ItemContent, error)
}

// bodyForApproval is the body an approval creates its entity with, and
// whether the item's text must be read afterwards (a FillBody step). It
// reads nothing: the body an item arrived with (a webhook's, a relay's)
// is kept on the suggestion; any other is the source's, read later.
func bodyForApproval(s scouts.Suggestion, hasSource bool) (string, bool) {
	if body, ok := storedBody(s); ok {
		return body, false
	}
	return s.Excerpt, hasSource
}

// fillStep is the FillBody run of an approval that created ent, numbered n.
func fillStep(s scouts.Suggestion, ent scouts.Entity, n int, by string) ActionRun {
	p, _ := json.Marshal(fillParams{EntityID: ent.ID, Kind: ent.Kind, Placeholder: ent.Body})
	now := ent.CreatedAt
	return ActionRun{SuggestionID: s.ID, N: n, Key: ActionKey(s.ID, n), TraceID: s.TraceID, ScoutID: s.ScoutID, SourceRef: s.SourceRef,
		Action: FillBody, Params: p, Origin: "kind", Mode: actions.Allow, ModeSource: actions.SourceInferred, Phase: PhaseApproval,
		By: by, State: ActionQueued, NextAt: now, CreatedAt: now, UpdatedAt: now}
}

// fillBody runs a FillBody step: read the item's text and put it in the
// entity unless its body changed since it was created. A source that says
// the item is gone leaves the placeholder, and the step says so; a source
// that cannot be reached now is tried again like any remote action.
func (e *Engine) fillBody(ctx context.Context, r ActionRun) (json.RawMessage, error) {
	var p fillParams
	if err := json.Unmarshal(r.Params, &p); err != nil || p.EntityID == "" {
		return nil, scouts.Errorf(scouts.EInvalid, "%s needs the entity it fills", FillBody)
	}
	done := func(res fillResult) (json.RawMessage, error) {
		res.EntityID = p.EntityID
		b, err := json.Marshal(res)
		return b, err
	}
	conn := e.connector(r.ScoutID)
	if conn == nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "the scout is not running, so the item cannot be read yet")
	}
	var c scouts.ItemContent
	var err error
	if tf, ok := conn.(textFetcher); ok {
		c, err = tf.FetchText(ctx, r.SourceRef)
	} else {
		c, err = conn.FetchContent(ctx, r.SourceRef)
	}
	var skip *scouts.SkipError
	switch {
	case errors.As(err, &skip):
		return done(fillResult{Note: "the item could not be read (" + skip.Reason + "); the entity keeps the card's excerpt"})
	case err != nil && permanent(err):
		return done(fillResult{Note: "the item could not be read (" + errorText(err) + "); the entity keeps the card's excerpt"})
	case err != nil:
		return nil, err
	}
	if c.Text == "" {
		return done(fillResult{Note: "the item has no text; the entity keeps the card's excerpt"})
	}
	ent, filled, err := e.cfg.Store.FillEntityBody(ctx, p.Kind, p.EntityID, p.Placeholder, clip(c.Text, scouts.MaxBodyBytes), e.cfg.Now())
	switch {
	case scouts.ErrorCode(err) == scouts.ENotFound:
		return done(fillResult{Note: "the " + string(p.Kind) + " was deleted before its text came"})
	case err != nil:
		return nil, err
	case !filled:
		return done(fillResult{Note: "the " + string(p.Kind) + "'s text was edited meanwhile; it is kept"})
	}
	// Its text has come; the step is recorded done just after.
	ent.BodyPending = false
	e.emit(scouts.Event{Type: scouts.EventEntityUpdated, Data: ent})
	res := fillResult{Filled: true}
	if c.Truncated || len(c.Text) > scouts.MaxBodyBytes {
		res.Note = "the item is longer than an entity holds; its text was cut"
	}
	return done(res)
}

// queueFill adds an approval's FillBody step to the actions it records,
// numbered after all of them, audited as queued. It goes in before the
// remote actions: the outbox runs a decision's actions in the order they
// were written, and a plan that moves a file or trashes a mail should not
// move it out of reach before its text is read.
func queueFill(s scouts.Suggestion, ent scouts.Entity, existing, runs []ActionRun, by string, audit []scouts.AuditEvent) ([]ActionRun, []scouts.AuditEvent) {
	n := 0
	for _, r := range existing {
		n = max(n, r.N)
	}
	for _, r := range runs {
		n = max(n, r.N)
	}
	st := fillStep(s, ent, n+1, by)
	audit = append(audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionQueued, Outcome: scouts.OutcomeOK,
		Summary: fmt.Sprintf("Queued %s (action %d): the %s has the card's excerpt until then", describeAction(st), st.N, ent.Kind),
		Refs:    actionRefs(st, "actor", by, "entity_id", ent.ID), At: st.CreatedAt})
	i := 0
	for i < len(runs) && runs[i].State == ActionDone {
		i++
	}
	return slices.Insert(runs, i, st), audit
}
