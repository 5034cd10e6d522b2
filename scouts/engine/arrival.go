package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// planContext is what arrivals of one page share: the policies and the
// user's defaults, read once.
type planContext struct {
	pol  actions.Policies
	defs PlanDefaults
}

func (as *assessor) planContext(ctx context.Context) (*planContext, error) {
	if as.plan == nil {
		pol, err := as.e.cfg.Store.Policies(ctx)
		if err != nil {
			return nil, fmt.Errorf("engine: policies: %w", err)
		}
		defs, err := as.e.cfg.Store.PlanDefaults(ctx)
		if err != nil {
			return nil, fmt.Errorf("engine: plan defaults: %w", err)
		}
		as.plan = &planContext{pol: pol, defs: defs}
	}
	return as.plan, nil
}

// onArrival does what policies allow without a person when an item
// arrives (SPEC §8, invariant 4: nothing is created or changed without
// approval unless a recorded policy allowed it), and records which policy
// allowed each thing:
//
//   - an item that reaches the inbox is created as its proposed kind when
//     creating that kind resolves to allow — the scout does not review
//     (its review switch is off), or a policy allows it ("approve and
//     always allow") — and then its plan's allowed actions are queued;
//   - otherwise the card waits, and only the actions rules proposed that
//     resolve to allow are queued now; denied ones are recorded as denied.
func (e *Engine) onArrival(ctx context.Context, as *assessor, s scouts.Scout, rec *ItemRecord, body string, now time.Time) error {
	pc, err := as.planContext(ctx)
	if err != nil {
		return err
	}
	sug := rec.Suggestion
	kind := sug.ProposedKind
	create, _ := e.catalogue().Get(actions.CreateAction(string(kind)))
	res := pc.pol.Resolve(create, s.ID)
	reviewOff := false
	if res.Source == actions.SourceInferred && !s.Review {
		res, reviewOff = actions.Resolution{Mode: actions.Allow, Source: actions.SourceScout}, true
	}
	refs := func(extra ...string) map[string]string {
		m := map[string]string{"scout_id": s.ID, "suggestion_id": sug.ID, "source_ref": sug.SourceRef}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	n := 0
	newRun := func(st PlanStep, phase string) ActionRun {
		n++
		return ActionRun{SuggestionID: sug.ID, N: n, Key: ActionKey(sug.ID, n), TraceID: sug.TraceID, ScoutID: s.ID, SourceRef: sug.SourceRef,
			Action: st.Action, Params: st.Params, Origin: st.Origin, Mode: st.Mode, ModeSource: st.Source, Phase: phase, By: "policy",
			State: ActionQueued, NextAt: now, CreatedAt: now, UpdatedAt: now, Step: st.Step}
	}
	// Only what reaches the inbox is auto-created: screened and spam items
	// wait for a person whatever the policies.
	if sug.Lane == scouts.LaneInbox && res.Mode == actions.Allow {
		ent := scouts.Entity{Kind: kind, ID: scouts.NewEntityID(kind), Title: sug.Title, Body: body,
			SourceSuggestionID: sug.ID, CreatedAt: now, UpdatedAt: now}
		rec.Entity = &ent
		rec.Suggestion.Status = scouts.StatusApproved
		rec.Suggestion.ResolvedAt = now
		rec.Suggestion.ResolvedKind = kind
		rec.Suggestion.ResolvedEntityID = ent.ID
		rec.Suggestion.ResolvedBy = "policy"
		why := fmt.Sprintf("the scout %q creates without review", s.Name)
		if !reviewOff {
			why = fmt.Sprintf("%s is allowed (%s)", create.Name, modeWords(res.Mode, res.Source))
		}
		st := PlanStep{Action: create.Name, Params: json.RawMessage(`{}`), Origin: "kind", Mode: res.Mode, Source: res.Source}
		r := newRun(st, PhaseApproval)
		r.State, r.Attempts = ActionDone, 1
		r.Result, _ = json.Marshal(map[string]string{"entity_id": ent.ID, "kind": string(kind)})
		rec.Actions = append(rec.Actions, r)
		rec.Audit = append(rec.Audit,
			scouts.AuditEvent{TraceID: sug.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditAutoApproved, Outcome: scouts.OutcomeOK,
				Summary: fmt.Sprintf("Auto-created as %s: %s", kind, why), Refs: refs("actor", "policy", "action", create.Name,
					"mode", string(res.Mode), "mode_source", string(res.Source)), At: now},
			scouts.AuditEvent{TraceID: sug.TraceID, Stage: scouts.StageExecute, Type: scouts.AuditEntityCreated, Outcome: scouts.OutcomeOK,
				Summary: fmt.Sprintf("Created %s %q", kind, ent.Title), Refs: actionRefs(r, "entity_id", ent.ID, "entity_kind", string(kind), "actor", "policy"), At: now})
		held := map[string]bool{}
		for _, st := range e.proposePlan(s, sug, kind, pc.pol, pc.defs, nil)[1:] {
			e.arrivalPlanStep(ctx, s, sug, st, PhaseApproval, rec, newRun, held, now)
		}
		chainSteps(nil, rec.Actions)
		return nil
	}
	held := map[string]bool{}
	for _, st := range e.proposePlan(s, sug, kind, pc.pol, pc.defs, nil) {
		if st.Origin == "kind" || st.Origin == "default" {
			continue // the person decides these with the card
		}
		e.arrivalPlanStep(ctx, s, sug, st, PhaseArrival, rec, newRun, held, now)
	}
	chainSteps(nil, rec.Actions)
	return nil
}

// arrivalPlanStep is arrivalStep for a step of a rule's plan: once one of
// its plan's steps is not queued (it waits for the card, or is denied),
// the steps after it are held too, since each runs after the one before.
func (e *Engine) arrivalPlanStep(ctx context.Context, s scouts.Scout, sug scouts.Suggestion, st PlanStep, phase string, rec *ItemRecord,
	newRun func(PlanStep, string) ActionRun, held map[string]bool, now time.Time) {
	if st.Step == nil {
		e.arrivalStep(ctx, s, sug, st, phase, rec, newRun, now)
		return
	}
	if held[st.Origin] {
		rec.Audit = append(rec.Audit, scouts.AuditEvent{TraceID: sug.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionLeftOut, Outcome: scouts.OutcomeSkipped,
			Summary: fmt.Sprintf("Not run yet: %s is a step of %s after one that was not queued; it waits for the card", st.Action, st.Origin),
			Refs:    map[string]string{"scout_id": s.ID, "suggestion_id": sug.ID, "action": st.Action, "origin": st.Origin, "mode": string(st.Mode), "mode_source": string(st.Source), "actor": "policy"}, At: now})
		return
	}
	before := len(rec.Actions)
	e.arrivalStep(ctx, s, sug, st, phase, rec, newRun, now)
	if len(rec.Actions) == before {
		held[st.Origin] = true
	}
}

// arrivalStep queues one action that no person approves when its mode is
// allow, and records why it does or does not run.
func (e *Engine) arrivalStep(ctx context.Context, s scouts.Scout, sug scouts.Suggestion, st PlanStep, phase string, rec *ItemRecord,
	newRun func(PlanStep, string) ActionRun, now time.Time) {
	refs := map[string]string{"scout_id": s.ID, "suggestion_id": sug.ID, "action": st.Action, "mode": string(st.Mode),
		"mode_source": string(st.Source), "origin": st.Origin, "actor": "policy"}
	note := func(typ, outcome, summary string) {
		rec.Audit = append(rec.Audit, scouts.AuditEvent{TraceID: sug.TraceID, Stage: scouts.StageDecision, Type: typ, Outcome: outcome, Summary: summary, Refs: refs, At: now})
	}
	by := "the card was created without review"
	if phase == PhaseArrival {
		by = "proposed by " + st.Origin
	}
	switch {
	case st.Mode == actions.Deny:
		note(scouts.AuditActionDenied, scouts.OutcomeSkipped, fmt.Sprintf("Not run: %s (%s) is denied (%s)", st.Action, by, modeWords(st.Mode, st.Source)))
		return
	case st.Mode != actions.Allow:
		if phase == PhaseApproval {
			note(scouts.AuditActionLeftOut, scouts.OutcomeSkipped, fmt.Sprintf("Not run: %s requires approval (%s), and %s", st.Action, modeWords(st.Mode, st.Source), by))
		}
		return // a rule's proposal waits on the card for the person
	case !st.Enabled:
		return
	}
	if x := e.executor(st.Action); x != nil {
		if err := x.Check(ctx, Invocation{Action: st.Action, Params: st.Params, Scout: s, Suggestion: sug}); err != nil {
			note(scouts.AuditActionFailed, scouts.OutcomeError, fmt.Sprintf("Not run: %s (%s): %s", st.Action, by, errorText(err)))
			return
		}
	}
	r := newRun(st, phase)
	rec.Actions = append(rec.Actions, r)
	rec.Audit = append(rec.Audit, scouts.AuditEvent{TraceID: sug.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionQueued, Outcome: scouts.OutcomeOK,
		Summary: fmt.Sprintf("Queued %s without approval: %s, and a policy allows it (%s)", describeAction(r), by, modeWords(st.Mode, st.Source)),
		Refs:    actionRefs(r, "actor", "policy"), At: now})
}
