package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// Unsubscribing from a sender's list is a person's request on a sender
// (the Senders view's "unsubscribe and screen"), not a decision on one
// card: the action is recorded on the sender's card whose mail is read
// for the list's headers, queued in the outbox with its idempotency key
// like any other, phase "lane" (it goes with screening the sender), and
// runs once. The request is the approval the action needs; a deny
// policy refuses it.

// Unsubscribe queues gmail.unsubscribe for the mail of card id, asked by
// actor. An unsubscription of the card already queued, running or done
// is returned as it is (queued false): asking twice unsubscribes once.
// EInvalid for a card that is no Gmail card; EConflict when this desktop
// cannot run the action or a policy denies it.
func (e *Engine) Unsubscribe(ctx context.Context, id, actor string) (run ActionRun, queued bool, err error) {
	if actor == "" {
		actor = "user"
	}
	cur, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return ActionRun{}, false, err
	}
	sc, err := e.scout(ctx, cur.ScoutID)
	if err != nil {
		return ActionRun{}, false, err
	}
	if sc.Kind != scouts.KindGmail {
		return ActionRun{}, false, scouts.Errorf(scouts.EInvalid, "suggestion %s is a %s card: only a mail's list can be unsubscribed from", id, cur.SourceType)
	}
	d, ok := e.catalogue().Get(actions.GmailUnsubscribe)
	if !ok {
		return ActionRun{}, false, scouts.Errorf(scouts.EInternal, "the catalogue has no %s", actions.GmailUnsubscribe)
	}
	if e.executor(d.Name) == nil {
		return ActionRun{}, false, scouts.Errorf(scouts.EConflict, "this desktop cannot reach Gmail: connect the account, then unsubscribe again")
	}
	pol, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return ActionRun{}, false, err
	}
	res := pol.Resolve(d, sc.ID)
	if res.Mode == actions.Deny {
		return ActionRun{}, false, scouts.Errorf(scouts.EConflict, "%s is denied (%s): change it in Settings → Policies to unsubscribe", d.Name, modeWords(res.Mode, res.Source))
	}
	now := e.cfg.Now()
	var rec LaneRecord
	_, err = e.cfg.Store.QueueActions(ctx, id, func(s scouts.Suggestion, runs []ActionRun) LaneRecord {
		rec = LaneRecord{}
		n := 0
		for _, r := range runs {
			n = max(n, r.N)
			if r.Action == actions.GmailUnsubscribe && (r.State == ActionQueued || r.State == ActionRunning || r.State == ActionDone) {
				run = r
				return rec
			}
		}
		n++
		r := ActionRun{SuggestionID: s.ID, N: n, Key: ActionKey(s.ID, n), TraceID: s.TraceID, ScoutID: s.ScoutID, SourceRef: s.SourceRef,
			Action: d.Name, Params: json.RawMessage(`{}`), Origin: "senders", Mode: res.Mode, ModeSource: res.Source, Phase: PhaseLane, By: actor,
			State: ActionQueued, NextAt: now, CreatedAt: now, UpdatedAt: now}
		rec.Actions = []ActionRun{r}
		rec.Audit = []scouts.AuditEvent{{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionQueued, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("Queued %s (action %d): %s asked to unsubscribe from this sender; %s", describeAction(r), n, actor, modeWords(res.Mode, res.Source)),
			Refs:    actionRefs(r, "actor", actor), At: now}}
		run, queued = r, true
		return rec
	})
	if err != nil {
		return ActionRun{}, false, err
	}
	e.announce(ApprovalRecord{Actions: rec.Actions})
	return run, queued, nil
}
