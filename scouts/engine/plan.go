package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// ActionState is where one of a suggestion's actions is.
type ActionState string

const (
	// ActionQueued waits in the outbox for its next attempt (NextAt).
	ActionQueued ActionState = "queued"
	// ActionRunning: an attempt has started and not yet reported. After a
	// crash, such actions are queued again; executors are idempotent.
	ActionRunning ActionState = "running"
	ActionDone    ActionState = "done"
	// ActionFailed: attempts stopped (the remote side refused it, or too
	// many attempts failed); the person may retry or drop it.
	ActionFailed ActionState = "failed"
	// ActionDropped: the person gave up on a failing action.
	ActionDropped ActionState = "dropped"
	// ActionCancelled: the approval was undone before the action ran.
	ActionCancelled ActionState = "cancelled"
	// ActionUndone: a local action (an entity) taken back by an undo.
	ActionUndone ActionState = "undone"
)

// Action phases: when an action was decided.
const (
	PhaseApproval = "approval" // with a person's approval (or an auto scout's)
	PhaseArrival  = "arrival"  // when the item arrived: a rule proposed it and a policy allowed it
	// PhaseLane: with a lane move — a card brought back takes its mail
	// out of the Trash; a sender screened with "unsubscribe and screen"
	// unsubscribes from its list (Unsubscribe).
	PhaseLane = "lane"
)

// ActionRun is one action recorded for a suggestion: a local action done
// with the decision, or a remote one going through the outbox.
type ActionRun struct {
	SuggestionID string
	// N numbers a suggestion's actions from 1, across re-approvals after
	// an undo; the idempotency key is derived from the suggestion and N.
	N         int
	Key       string
	TraceID   string
	ScoutID   string
	SourceRef string
	Action    string
	Params    json.RawMessage
	// Origin is why the action is in the plan: "kind" (the entity the
	// approval creates), "default" (the user's defaults for such cards),
	// "rule:<id>", or "user" (added to the plan by the person).
	Origin     string
	Mode       actions.Mode
	ModeSource actions.Source
	Phase      string
	// By is who decided: the approving actor, or "policy".
	By        string
	State     ActionState
	Attempts  int
	LastError string
	// NextAt is when a queued action is tried next.
	NextAt    time.Time
	Result    json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
	// After is the N of the step this one waits for (steps.go): the
	// outbox takes it only once that one is done; 0 waits for nothing.
	After int
	// Step is set on a step of a rule's plan.
	Step *Step
}

// Failing reports whether the action needs the person's attention: it
// failed for good, or its last attempt failed and it waits to retry.
func (r ActionRun) Failing() bool {
	return r.State == ActionFailed || (r.State == ActionQueued && r.LastError != "")
}

// ActionKey is the idempotency key of a suggestion's nth action: stable
// across crashes and retries, so the remote side (or the executor's own
// check) applies it once.
func ActionKey(suggestionID string, n int) string {
	return "act:" + suggestionID + ":" + strconv.Itoa(n)
}

// PlanStep is one action a card proposes (or a person chose) for its
// approval, with the mode it resolves to.
type PlanStep struct {
	Action  string
	Params  json.RawMessage
	Enabled bool
	Origin  string
	Risk    actions.Risk
	Where   actions.Where
	Mode    actions.Mode
	Source  actions.Source
	// Description says what the action does, for the card.
	Description string
	// Step is set on a step of a rule's plan (steps.go).
	Step *Step
}

// PlanChoice is a person's choice for one action of the plan: the approve
// request carries the whole plan as the card showed it, with toggles.
type PlanChoice struct {
	Action  string
	Params  json.RawMessage
	Enabled bool
}

// PlanDefaults are the user's defaults for what a card proposes.
type PlanDefaults struct {
	// GmailArchive proposes archiving a Gmail card's email (ticked).
	GmailArchive bool
	// GmailLabel, when set, proposes adding this label to the email.
	GmailLabel string
}

// DefaultPlanDefaults are the defaults before the user sets any.
func DefaultPlanDefaults() PlanDefaults { return PlanDefaults{GmailArchive: true} }

// Validate checks the defaults.
func (d PlanDefaults) Validate() error {
	if l := strings.TrimSpace(d.GmailLabel); len(l) > 225 || (d.GmailLabel != "" && l == "") {
		return scouts.Errorf(scouts.EInvalid, "gmail_label must be a label name of 1 to 225 characters")
	}
	return nil
}

// SuggestionPlan is what a suggestion's approval does: the proposed plan
// while it is pending (Proposed, with Kind the kind it proposes), and what
// was recorded (Runs: actions done, queued or failing).
type SuggestionPlan struct {
	Kind     scouts.EntityKind
	Proposed []PlanStep
	Runs     []ActionRun
}

// maxPlanActions bounds a plan.
const maxPlanActions = 20

// ActionExecutor runs one remote action. Execute must be idempotent in
// effect for a given key: it may be called again with the same key after a
// crash between its effect and the outbox's record of it. An error with
// code EInvalid or ENotFound (or EConflict) stops the attempts; any other
// error is retried with backoff.
type ActionExecutor interface {
	// Check validates an invocation when it is planned (and the executor
	// checks again when it runs): a destination outside the home folder,
	// a secret that does not exist.
	Check(ctx context.Context, inv Invocation) error
	Execute(ctx context.Context, inv Invocation) (json.RawMessage, error)
}

// ParamsChecker is implemented by executors that can check an action's
// parameters without an item: the shape of a URL, credentials in it, a
// destination's path. It is the check Check and Execute begin with, run
// also when a rule is saved or imported, so that what the executor would
// refuse is never stored (a secret in a URL would live on in the
// definition's history and its exports).
type ParamsChecker interface {
	CheckParams(params json.RawMessage) error
}

// Invocation is one run of a remote action.
type Invocation struct {
	Key        string
	Action     string
	Params     json.RawMessage
	Scout      scouts.Scout
	Suggestion scouts.Suggestion
	Attempt    int
}

// executor returns the executor of a remote action: a registered one, or
// one of the actions that come and go (ExecutorFor); nil when this
// desktop cannot run it.
func (e *Engine) executor(action string) ActionExecutor {
	if x := e.cfg.Executors[action]; x != nil {
		return x
	}
	if e.cfg.ExecutorFor != nil {
		return e.cfg.ExecutorFor(action)
	}
	return nil
}

// catalogue returns the engine's action catalogue.
func (e *Engine) catalogue() *actions.Catalogue { return e.actions() }

// Plan returns a suggestion's plan: for a pending suggestion, the actions
// its approval as kind would run (kind "" is the proposed kind), each with
// its resolved mode; for any, the actions recorded so far.
func (e *Engine) Plan(ctx context.Context, id string, kind scouts.EntityKind) (SuggestionPlan, error) {
	s, err := e.cfg.Store.GetSuggestion(ctx, id)
	if err != nil {
		return SuggestionPlan{}, err
	}
	runs, err := e.cfg.Store.ActionRuns(ctx, id)
	if err != nil {
		return SuggestionPlan{}, err
	}
	out := SuggestionPlan{Runs: runs}
	if s.Status != scouts.StatusPending {
		return out, nil
	}
	if kind == "" {
		kind = s.ProposedKind
	}
	if kind, err = scouts.ParseEntityKind(string(kind)); err != nil {
		return SuggestionPlan{}, err
	}
	sc, pol, defs, err := e.planContext(ctx, s.ScoutID)
	if err != nil {
		return SuggestionPlan{}, err
	}
	out.Kind = kind
	out.Proposed = e.proposePlan(sc, s, kind, pol, defs, runs)
	return out, nil
}

// planContext reads what a plan depends on: the scout, the policies and
// the user's defaults.
func (e *Engine) planContext(ctx context.Context, scoutID string) (scouts.Scout, actions.Policies, PlanDefaults, error) {
	sc, err := e.scout(ctx, scoutID)
	if err != nil {
		return scouts.Scout{}, actions.Policies{}, PlanDefaults{}, err
	}
	pol, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return scouts.Scout{}, actions.Policies{}, PlanDefaults{}, err
	}
	defs, err := e.cfg.Store.PlanDefaults(ctx)
	if err != nil {
		return scouts.Scout{}, actions.Policies{}, PlanDefaults{}, err
	}
	return sc, pol, defs, nil
}

func (e *Engine) scout(ctx context.Context, id string) (scouts.Scout, error) {
	all, err := e.cfg.Store.ListScouts(ctx)
	if err != nil {
		return scouts.Scout{}, err
	}
	for _, s := range all {
		if s.ID == id {
			return s, nil
		}
	}
	// A suggestion outlives a deleted scout: its plan is the entity alone.
	return scouts.Scout{ID: id, Review: true}, nil
}

// proposePlan lists what approving s as kind would do: create the entity,
// then the user's defaults for the scout's kind (archive a Gmail card's
// email, label it), then what rules proposed and a policy did not already
// run on arrival. A denied action is listed, unticked, so the card can say
// why it will not run.
func (e *Engine) proposePlan(sc scouts.Scout, s scouts.Suggestion, kind scouts.EntityKind, pol actions.Policies, defs PlanDefaults, runs []ActionRun) []PlanStep {
	var steps []PlanStep
	add := func(action string, params json.RawMessage, enabled bool, origin string) {
		d, ok := e.catalogue().Get(action)
		if !ok || !d.AppliesTo(string(sc.Kind)) {
			return
		}
		if len(params) == 0 {
			params = json.RawMessage(`{}`)
		}
		res := e.quietHours(s.ScoutID, d, pol.Resolve(d, s.ScoutID))
		if d.Where == actions.Outbox && e.executor(action) == nil {
			return // this desktop cannot run it at all
		}
		steps = append(steps, PlanStep{Action: action, Params: params, Enabled: enabled && res.Mode != actions.Deny, Origin: origin,
			Risk: d.Risk, Where: d.Where, Mode: res.Mode, Source: res.Source, Description: d.Description})
	}
	add(actions.CreateAction(string(kind)), nil, true, "kind")
	if sc.Kind == scouts.KindGmail {
		add(actions.GmailArchive, nil, defs.GmailArchive, "default")
		if l := strings.TrimSpace(defs.GmailLabel); l != "" {
			p, _ := json.Marshal(map[string]string{"label": l})
			add(actions.GmailLabel, p, true, "default")
		}
	}
	ran := arrivalRuns(runs)
	for _, ra := range ruleActions(s.Assessment) {
		if ra.OnFailure {
			continue // queued only when a step fails (steps.go)
		}
		origin := "rule"
		if ra.RuleID != "" {
			origin = "rule:" + ra.RuleID
		}
		if ran.take(ra, origin) || (!ra.Plan && slices.ContainsFunc(steps, func(st PlanStep) bool {
			return st.Action == ra.Action && jsonEqual(st.Params, ra.Params)
		})) {
			continue // already done, or already in the plan (archive by default and by the rule)
		}
		before := len(steps)
		add(ra.Action, ra.Params, true, origin)
		if len(steps) > before {
			steps[before].Step = ruleStep(ra)
		}
	}
	for _, sa := range s.Assessment.SourceActions {
		if slices.ContainsFunc(steps, func(st PlanStep) bool { return st.Action == sa.Action && jsonEqual(st.Params, sa.Params) }) {
			continue
		}
		add(sa.Action, sa.Params, true, "source")
	}
	return steps
}

// ranOnArrival accounts for the actions of a card recorded on arrival,
// each matched to one rule action at most, so that a rule proposing the
// same action twice has one of them hidden per run, not both.
type ranOnArrival struct {
	// steps counts, per rule, the steps of its plan recorded on arrival:
	// arrival records a plan's steps in order and stops at the first it
	// holds, so they are its first steps, matched by their place in the
	// plan (two steps may share an action and even its parameters).
	steps map[string]int
	seen  map[string]int // plan steps of each rule matched so far
	// others are the other actions run on arrival, each matched to the
	// first rule action of the same rule, action and parameters.
	others []ActionRun
}

func arrivalRuns(runs []ActionRun) *ranOnArrival {
	out := &ranOnArrival{steps: map[string]int{}, seen: map[string]int{}}
	for _, r := range runs {
		switch {
		case r.Phase != PhaseArrival:
		case r.Step != nil && r.Step.OnFailure:
			// Added when a step failed: no step the card proposes.
		case r.Step != nil:
			out.steps[r.Origin]++
		default:
			out.others = append(out.others, r)
		}
	}
	return out
}

// take reports whether ra (of origin) was run on arrival, and if so
// matches it to that run.
func (o *ranOnArrival) take(ra scouts.RuleAction, origin string) bool {
	if ra.Plan {
		o.seen[origin]++
		return o.seen[origin] <= o.steps[origin]
	}
	for i, r := range o.others {
		if r.Origin == origin && r.Action == ra.Action && jsonEqual(r.Params, ra.Params) {
			o.others = slices.Delete(o.others, i, i+1)
			return true
		}
	}
	return false
}

// choosePlan turns the person's choices into the steps to record: the
// entity action for kind first (implied when absent), then the enabled
// remote actions, each checked. Without choices the proposed plan stands.
func (e *Engine) choosePlan(ctx context.Context, sc scouts.Scout, s scouts.Suggestion, kind scouts.EntityKind, choices []PlanChoice, proposed []PlanStep) (steps, left []PlanStep, err error) {
	create := actions.CreateAction(string(kind))
	if choices == nil {
		if len(proposed) == 0 || proposed[0].Action != create {
			return nil, nil, scouts.Errorf(scouts.EInternal, "the plan of %s does not create a %s", s.ID, kind)
		}
		if proposed[0].Mode == actions.Deny {
			return nil, nil, scouts.Errorf(scouts.EInvalid, "%s is denied by the %s policy: approve as another kind, or change the policy (Settings → Policies)", create, proposed[0].Source)
		}
		for _, p := range proposed {
			if !p.Enabled {
				if p.Mode != actions.Deny {
					left = append(left, p)
				}
				continue
			}
			steps = append(steps, p)
		}
		return steps, left, nil
	}
	if len(choices) > maxPlanActions {
		return nil, nil, scouts.Errorf(scouts.EInvalid, "a plan has at most %d actions, got %d", maxPlanActions, len(choices))
	}
	origins := map[string]string{}
	for _, p := range proposed {
		if _, ok := origins[p.Action]; !ok {
			origins[p.Action] = p.Origin
		}
	}
	pol, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return nil, nil, err
	}
	sawCreate := false
	for i, c := range choices {
		d, ok := e.catalogue().Get(c.Action)
		if !ok {
			return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: unknown action %q (see GET /api/v1/actions)", i+1, c.Action)
		}
		if ck := actions.CreatedKind(c.Action); ck != "" {
			if c.Action != create {
				return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: %s does not match approving as %s", i+1, c.Action, kind.WithArticle())
			}
			if !c.Enabled {
				return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: %s cannot be unticked: approving creates the %s (reject the card to create nothing)", i+1, c.Action, kind)
			}
			if sawCreate {
				return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: %s is in the plan twice", i+1, c.Action)
			}
			sawCreate = true
		}
		origin := origins[c.Action]
		if origin == "" {
			origin = "user"
		}
		res := pol.Resolve(d, sc.ID)
		if !c.Enabled {
			// A denied action could not have run: leaving it out is no
			// one's choice (as when the plan is approved as proposed).
			if res.Mode != actions.Deny {
				left = append(left, PlanStep{Action: c.Action, Params: c.Params, Origin: origin, Risk: d.Risk, Where: d.Where,
					Mode: res.Mode, Source: res.Source, Description: d.Description})
			}
			continue
		}
		if !d.AppliesTo(string(sc.Kind)) {
			return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: %s applies to %s cards only, and this is a %s card", i+1, c.Action, strings.Join(d.Kinds, ", "), sc.Kind)
		}
		params := c.Params
		if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
			params = json.RawMessage(`{}`)
		}
		if err := e.catalogue().Validate(c.Action, params); err != nil {
			return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: %s", i+1, strings.TrimPrefix(err.Error(), actions.ErrInvalid.Error()+": "))
		}
		if res.Source == actions.SourceBlocked {
			return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: %s is blocked: %s; untick it to approve", i+1, c.Action, d.Blocked)
		}
		if res.Mode == actions.Deny {
			return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: %s is denied by the %s policy; untick it to approve, or change the policy (Settings → Policies)", i+1, c.Action, res.Source)
		}
		if d.Where == actions.Outbox {
			x := e.executor(c.Action)
			if x == nil {
				return nil, nil, scouts.Errorf(scouts.EInvalid, "action %d: this desktop cannot run %s", i+1, c.Action)
			}
			if err := x.Check(ctx, Invocation{Action: c.Action, Params: params, Scout: sc, Suggestion: s}); err != nil {
				return nil, nil, planError(i+1, c.Action, err)
			}
		}
		var step *Step
		for _, p := range proposed {
			if p.Step != nil && p.Action == c.Action && jsonEqual(p.Params, params) {
				step = p.Step // a rule's step, approved as proposed
				break
			}
		}
		steps = append(steps, PlanStep{Action: c.Action, Params: params, Enabled: true, Origin: origin, Risk: d.Risk, Where: d.Where,
			Mode: res.Mode, Source: res.Source, Description: d.Description, Step: step})
	}
	if !sawCreate {
		d, _ := e.catalogue().Get(create)
		res := pol.Resolve(d, sc.ID)
		steps = append([]PlanStep{{Action: create, Params: json.RawMessage(`{}`), Enabled: true, Origin: "kind", Risk: d.Risk, Where: d.Where,
			Mode: res.Mode, Source: res.Source, Description: d.Description}}, steps...)
	}
	if steps[0].Action != create {
		// The entity comes first: it is what the remote actions follow.
		for i, st := range steps {
			if st.Action == create {
				steps = append(append([]PlanStep{st}, steps[:i]...), steps[i+1:]...)
				break
			}
		}
	}
	if steps[0].Mode == actions.Deny {
		return nil, nil, scouts.Errorf(scouts.EInvalid, "%s is denied by the %s policy: approve as another kind, or change the policy (Settings → Policies)", create, steps[0].Source)
	}
	return steps, left, nil
}

// planError words an executor's plan-time refusal.
func planError(n int, action string, err error) error {
	var se *scouts.Error
	if errors.As(err, &se) {
		return &scouts.Error{Code: se.Code, Message: fmt.Sprintf("action %d: %s: %s", n, action, se.Message)}
	}
	return scouts.Errorf(scouts.EInvalid, "action %d: %s: %v", n, action, err)
}

// actionRefs are the audit refs of an action's every entry.
func actionRefs(r ActionRun, extra ...string) map[string]string {
	m := map[string]string{"scout_id": r.ScoutID, "suggestion_id": r.SuggestionID, "action": r.Action,
		"n": strconv.Itoa(r.N), "key": r.Key, "mode": string(r.Mode), "mode_source": string(r.ModeSource), "origin": r.Origin}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

// modeWords says a resolution in words for the trail.
func modeWords(m actions.Mode, src actions.Source) string {
	var from string
	switch src {
	case actions.SourceScout:
		from = "this scout's policy"
	case actions.SourceGlobal:
		from = "the global policy"
	case actions.SourceBlocked:
		from = "its block (its definition changed since it was approved)"
	case actions.SourceQuietHours:
		from = "the scout's quiet hours (allowed otherwise)"
	default:
		from = "its risk (no policy set)"
	}
	return fmt.Sprintf("mode %s, from %s", m, from)
}

// ruleActions returns the actions rules proposed in an assessment.
func ruleActions(a scouts.Assessment) []scouts.RuleAction { return a.RuleActions }

// jsonEqual compares two JSON values (absent is {}).
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if len(a) == 0 {
		a = json.RawMessage(`{}`)
	}
	if len(b) == 0 {
		b = json.RawMessage(`{}`)
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
