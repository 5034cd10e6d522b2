package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// Plans as steps (docs/actions.md, "Steps"). The steps of a rule that is
// a plan are recorded together, as every action is, in the transaction of
// the decision that queues them; each but the first waits for the one
// before it (ActionRun.After), and the outbox takes a step only once that
// one is done. Nothing is queued later by the outbox itself, except the
// on_failure steps: they are added in the same transaction that records a
// step failed for good, so a crash leaves them either not yet added (the
// failure is not recorded either, and its attempt runs again) or added
// once. Either way they run once, with the outbox's own idempotency.

// Step is what an action that is a step of a rule's plan carries.
type Step struct {
	// OutputAs names the step's result for the steps after it.
	OutputAs string `json:"output_as,omitempty"`
	// Late are the pointers of parameters rendered when the step runs,
	// Vars the item fields they read (copied when the rule matched).
	Late []string       `json:"late,omitempty"`
	Vars map[string]any `json:"vars,omitempty"`
	// OnFailure marks an on_failure step; Run is what its templates read
	// as .run: error and failed_step.
	OnFailure bool              `json:"on_failure,omitempty"`
	Run       map[string]string `json:"run,omitempty"`
}

// ruleStep is the Step of a rule's proposed action, nil when its rule is
// no plan.
func ruleStep(ra scouts.RuleAction) *Step {
	if !ra.Plan {
		return nil
	}
	return &Step{OutputAs: ra.OutputAs, Late: ra.Late, Vars: ra.Vars, OnFailure: ra.OnFailure}
}

// chainSteps makes each step of a plan among runs wait for the step of the
// same rule before it (runs in order, numbered), the first of a rule
// waiting for that rule's last step recorded before (existing): the steps
// approved with a card follow the ones run on its arrival.
func chainSteps(existing, runs []ActionRun) {
	last := map[string]int{}
	for _, r := range existing {
		switch {
		case r.Step == nil || r.Step.OnFailure:
		case r.State == ActionDropped || r.State == ActionCancelled || r.State == ActionUndone:
			// Never to be done: waiting for it would wait forever.
		default:
			last[r.Origin] = max(last[r.Origin], r.N)
		}
	}
	for i, r := range runs {
		if r.Step == nil || r.Step.OnFailure {
			continue
		}
		runs[i].After = last[r.Origin]
		last[r.Origin] = r.N
	}
}

// stepParams renders a step's late parameters from the results of the
// steps before it (their stored, redacted results) and the run.
func (e *Engine) stepParams(ctx context.Context, r ActionRun) (json.RawMessage, error) {
	if r.Step == nil || len(r.Step.Late) == 0 {
		return r.Params, nil
	}
	runs, err := e.cfg.Store.ActionRuns(ctx, r.SuggestionID)
	if err != nil {
		return nil, err
	}
	steps := map[string]any{}
	for _, o := range runs {
		if o.Step == nil || o.Step.OutputAs == "" || o.Origin != r.Origin || o.State != ActionDone {
			continue
		}
		var v any
		if len(o.Result) > 0 && json.Unmarshal(o.Result, &v) != nil {
			v = nil
		}
		if v == nil {
			v = map[string]any{}
		}
		steps[o.Step.OutputAs] = v
	}
	data := maps.Clone(r.Step.Vars)
	if data == nil {
		data = map[string]any{}
	}
	data["steps"] = steps
	run := map[string]any{}
	for k, v := range r.Step.Run {
		run[k] = v
	}
	data["run"] = run
	p, err := rules.RenderLate(r.Params, r.Step.Late, data)
	if err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "the step's parameters: %v", err)
	}
	return p, nil
}

// onFailureSteps returns the on_failure steps of the rule a failing step
// belongs to, as its suggestion recorded them, with their modes; nil when
// the action is no step of a plan with any.
func (e *Engine) onFailureSteps(ctx context.Context, r ActionRun) ([]PlanStep, error) {
	if r.Step == nil || r.Step.OnFailure {
		return nil, nil
	}
	sug, err := e.cfg.Store.GetSuggestion(ctx, r.SuggestionID)
	if err != nil {
		return nil, err
	}
	var out []PlanStep
	var pol actions.Policies
	for _, ra := range sug.Assessment.RuleActions {
		if !ra.OnFailure || "rule:"+ra.RuleID != r.Origin {
			continue
		}
		if out == nil {
			if pol, err = e.cfg.Store.Policies(ctx); err != nil {
				return nil, err
			}
		}
		d, ok := e.catalogue().Get(ra.Action)
		if !ok {
			continue
		}
		res := pol.Resolve(d, r.ScoutID)
		out = append(out, PlanStep{Action: ra.Action, Params: ra.Params, Origin: r.Origin, Mode: res.Mode, Source: res.Source, Step: ruleStep(ra)})
	}
	return out, nil
}

// queueOnFailure builds the on_failure runs of a plan whose step failed
// for good, numbered after the suggestion's others (all its actions, in
// the failure's transaction); none when they were added already.
func queueOnFailure(failed ActionRun, others []ActionRun, steps []PlanStep) ([]ActionRun, []scouts.AuditEvent) {
	n, index := 0, 0
	for _, o := range others {
		n = max(n, o.N)
		if o.Step != nil && o.Origin == failed.Origin {
			if o.Step.OnFailure {
				return nil, nil // once: added by an earlier failure
			}
			if o.N <= failed.N {
				index++
			}
		}
	}
	var runs []ActionRun
	var audit []scouts.AuditEvent
	// Like 2:webhook.post: no spaces, so that it fits in a URL as well.
	failedStep := fmt.Sprintf("%d:%s", index, failed.Action)
	prev := 0
	for _, st := range steps {
		if st.Mode == actions.Deny {
			audit = append(audit, scouts.AuditEvent{TraceID: failed.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionDenied, Outcome: scouts.OutcomeSkipped,
				Summary: fmt.Sprintf("Not run: the on_failure step %s is denied (%s)", st.Action, modeWords(st.Mode, st.Source)),
				Refs:    actionRefs(failed, "on_failure", st.Action), At: failed.UpdatedAt})
			continue
		}
		n++
		step := *st.Step
		step.Run = map[string]string{"error": failed.LastError, "failed_step": failedStep}
		r := ActionRun{SuggestionID: failed.SuggestionID, N: n, Key: ActionKey(failed.SuggestionID, n), TraceID: failed.TraceID, ScoutID: failed.ScoutID,
			SourceRef: failed.SourceRef, Action: st.Action, Params: st.Params, Origin: failed.Origin, Mode: st.Mode, ModeSource: st.Source,
			Phase: failed.Phase, By: "policy", State: ActionQueued, NextAt: failed.UpdatedAt, CreatedAt: failed.UpdatedAt, UpdatedAt: failed.UpdatedAt,
			After: prev, Step: &step}
		// The on_failure steps run in order too, each after the one
		// before it is done.
		prev = n
		runs = append(runs, r)
		audit = append(audit, scouts.AuditEvent{TraceID: failed.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditActionQueued, Outcome: scouts.OutcomeOK,
			Summary: fmt.Sprintf("Queued the on_failure step %s: %s of %s failed for good (%s)", describeAction(r), failedStep, failed.Origin, failed.LastError),
			Refs:    actionRefs(r, "actor", "policy", "failed_key", failed.Key), At: failed.UpdatedAt})
	}
	return runs, audit
}

// FailedStepN returns the N of the step whose failure added the on_failure
// step r, among its suggestion's runs; 0 when r is no on_failure step. The
// step is found as queueOnFailure named it (run.failed_step, "2:webhook.post"):
// the second step of r's plan recorded, in the order of their numbers.
func FailedStepN(runs []ActionRun, r ActionRun) int {
	if r.Step == nil || !r.Step.OnFailure {
		return 0
	}
	index, action, ok := strings.Cut(r.Step.Run["failed_step"], ":")
	k, err := strconv.Atoi(index)
	if !ok || err != nil || k < 1 {
		return 0
	}
	for _, o := range runs {
		if o.Step == nil || o.Step.OnFailure || o.Origin != r.Origin {
			continue
		}
		if k--; k == 0 {
			if o.Action != action {
				return 0
			}
			return o.N
		}
	}
	return 0
}
