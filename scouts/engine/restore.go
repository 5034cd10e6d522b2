package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// Bringing back a card whose mail the scout moved to Gmail's Trash (a
// scout that trashes spam) takes the mail out of the Trash again: the
// person said it is not spam, and Gmail deletes what stays in its Trash
// after 30 days. It is an outbox action like any other (gmail.restore),
// queued in the transaction that moves the card, with its idempotency key,
// run once and again after a crash (its executor looks before it acts).

// restorePlan is what bringing a card back does beyond the move: the step
// to queue, or why none is (a note for the trail).
type restorePlan struct {
	step *PlanStep
	note string
}

// restoreStep decides, before the move's transaction, whether bringing s
// back takes its mail out of the Trash.
func (e *Engine) restoreStep(ctx context.Context, s scouts.Suggestion) (restorePlan, error) {
	if s.Status != scouts.StatusPending || s.Lane == scouts.LaneInbox || !s.Assessment.Trashed {
		return restorePlan{}, nil
	}
	sc, err := e.scout(ctx, s.ScoutID)
	if err != nil {
		return restorePlan{}, err
	}
	if sc.Kind != scouts.KindGmail {
		return restorePlan{}, nil
	}
	d, ok := e.catalogue().Get(actions.GmailRestore)
	if !ok {
		return restorePlan{}, scouts.Errorf(scouts.EInternal, "the catalogue has no %s", actions.GmailRestore)
	}
	if e.executor(d.Name) == nil {
		return restorePlan{note: "The email stays in Gmail's Trash: this desktop cannot reach Gmail (connect the account, then bring the card back again)"}, nil
	}
	pol, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return restorePlan{}, err
	}
	res := pol.Resolve(d, sc.ID)
	if res.Mode == actions.Deny {
		return restorePlan{note: fmt.Sprintf("The email stays in Gmail's Trash: %s is denied (%s)", d.Name, modeWords(res.Mode, res.Source))}, nil
	}
	// The person's bringing it back is the approval the action may need.
	return restorePlan{step: &PlanStep{Action: d.Name, Params: json.RawMessage(`{}`), Enabled: true, Origin: "bring_back",
		Risk: d.Risk, Where: d.Where, Mode: res.Mode, Source: res.Source, Description: d.Description}}, nil
}

// queueRestore adds the restore to a bring-back's record: queued, numbered
// after the card's actions, unless one is already queued or done.
func (e *Engine) queueRestore(s scouts.Suggestion, runs []ActionRun, p restorePlan, actor string, now time.Time, rec *LaneRecord) {
	refs := map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": actor, "action": actions.GmailRestore}
	if p.note != "" {
		rec.Audit = append(rec.Audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionLeftOut, Outcome: scouts.OutcomeSkipped,
			Summary: p.note, Refs: refs, At: now})
		return
	}
	if p.step == nil {
		return
	}
	n := 0
	for _, r := range runs {
		n = max(n, r.N)
		if r.Action == actions.GmailRestore && (r.State == ActionQueued || r.State == ActionRunning || r.State == ActionDone) {
			return // brought back before (then marked as spam and undone): once is enough
		}
	}
	n++
	st := p.step
	r := ActionRun{SuggestionID: s.ID, N: n, Key: ActionKey(s.ID, n), TraceID: s.TraceID, ScoutID: s.ScoutID, SourceRef: s.SourceRef,
		Action: st.Action, Params: st.Params, Origin: st.Origin, Mode: st.Mode, ModeSource: st.Source, Phase: PhaseLane, By: actor,
		State: ActionQueued, NextAt: now, CreatedAt: now, UpdatedAt: now}
	rec.Actions = append(rec.Actions, r)
	rec.Audit = append(rec.Audit, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionQueued, Outcome: scouts.OutcomeOK,
		Summary: fmt.Sprintf("Queued %s (action %d): the scout had moved it to the Trash as spam, and %s brought the card back; %s",
			describeAction(r), n, actor, modeWords(st.Mode, st.Source)),
		Refs: actionRefs(r, "actor", actor), At: now})
}
