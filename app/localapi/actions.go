package localapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

func (s *Server) actionRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/actions", s.handleListActions)
	m.HandleFunc("GET /api/v1/actions/failing", s.handleFailingActions)
	m.HandleFunc("GET /api/v1/suggestions/{id}/plan", s.handlePlan)
	m.HandleFunc("POST /api/v1/suggestions/{id}/actions/{n}/retry", s.handleActionChange(true))
	m.HandleFunc("POST /api/v1/suggestions/{id}/actions/{n}/drop", s.handleActionChange(false))
	m.HandleFunc("GET /api/v1/policies", s.handleGetPolicies)
	m.HandleFunc("PUT /api/v1/policies", s.handlePutPolicies)
}

func (s *Server) handleListActions(w http.ResponseWriter, r *http.Request) {
	eng := s.core.Engine
	out := []apitype.ActionDef{}
	for _, d := range eng.Actions() {
		out = append(out, apitype.ActionDef{Name: d.Name, Description: d.Description, Risk: string(d.Risk), Runs: string(d.Where),
			Kinds: d.Kinds, Schema: d.Schema, Available: eng.CanRun(d.Name), InferredMode: string(actions.Inferred(d.Risk))})
	}
	writeJSON(w, http.StatusOK, out)
}

// plan returns a suggestion's plan for the API; as is the kind the
// proposal is for ("" for the proposed kind).
func (s *Server) plan(r *http.Request, id string, as scouts.EntityKind) (*apitype.Plan, error) {
	p, err := s.core.Engine.Plan(r.Context(), id, as)
	if err != nil {
		return nil, err
	}
	out := &apitype.Plan{Kind: string(p.Kind), Actions: []apitype.PlanAction{}}
	for _, run := range p.Runs {
		a := toPlanAction(run)
		if a.Failing {
			out.Failing++
		}
		if d, ok := s.actionDef(run.Action); ok {
			a.Description, a.Risk, a.Runs = d.Description, string(d.Risk), string(d.Where)
		}
		a.FailedN = engine.FailedStepN(p.Runs, run)
		out.Actions = append(out.Actions, a)
	}
	for _, st := range p.Proposed {
		a := apitype.PlanAction{Action: st.Action, Params: st.Params, Enabled: st.Enabled, Origin: st.Origin,
			Description: st.Description, Risk: string(st.Risk), Runs: string(st.Where), Mode: string(st.Mode), ModeSource: string(st.Source),
			State: "proposed"}
		if st.Step != nil {
			a.OutputAs = st.Step.OutputAs
		}
		out.Actions = append(out.Actions, a)
	}
	return out, nil
}

func (s *Server) actionDef(name string) (actions.Def, bool) {
	for _, d := range s.core.Engine.Actions() {
		if d.Name == name {
			return d, true
		}
	}
	return actions.Def{}, false
}

func toPlanAction(r engine.ActionRun) apitype.PlanAction {
	a := apitype.PlanAction{SuggestionID: r.SuggestionID, N: r.N, Action: r.Action, Params: r.Params, Enabled: true, Origin: r.Origin,
		Mode: string(r.Mode), ModeSource: string(r.ModeSource), State: string(r.State), Phase: r.Phase, DecidedBy: r.By,
		Attempts: r.Attempts, Error: r.LastError, Failing: r.Failing(), Result: r.Result, UpdatedAt: timePtr(r.UpdatedAt)}
	if r.State == engine.ActionQueued && r.Attempts > 0 {
		a.NextRetry = timePtr(r.NextAt)
	}
	a.After = r.After
	if r.Step != nil {
		a.OnFailure, a.OutputAs = r.Step.OnFailure, r.Step.OutputAs
	}
	return a
}

// handleFailingActions lists the failing actions of every card, for
// Status: each with its suggestion id and number, to retry or drop.
func (s *Server) handleFailingActions(w http.ResponseWriter, r *http.Request) {
	limit, err := limitParam(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if limit == 0 || limit > 1000 {
		limit = min(max(limit, 100), 1000)
	}
	runs, err := s.core.DB.ListFailingActions(r.Context(), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := []apitype.PlanAction{}
	for _, run := range runs {
		a := toPlanAction(run)
		if d, ok := s.actionDef(run.Action); ok {
			a.Description, a.Risk, a.Runs = d.Description, string(d.Risk), string(d.Where)
		}
		out = append(out, a)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handlePlan(w http.ResponseWriter, r *http.Request) {
	var as scouts.EntityKind
	if k := r.URL.Query().Get("as"); k != "" {
		kind, err := scouts.ParseEntityKind(k)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		as = kind
	}
	p, err := s.plan(r, r.PathValue("id"), as)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

func (s *Server) handleActionChange(retry bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 1 {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "action number %q: want 1, 2, …", r.PathValue("n")))
			return
		}
		change := s.core.Engine.DropAction
		if retry {
			change = s.core.Engine.RetryAction
		}
		run, err := change(r.Context(), r.PathValue("id"), n, actor(r))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out := toPlanAction(run)
		if d, ok := s.actionDef(run.Action); ok {
			out.Description, out.Risk, out.Runs = d.Description, string(d.Risk), string(d.Where)
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// approvePlan translates an approve request's plan (or the older gmail
// field) into the engine's choices; nil means the proposed plan.
func (s *Server) approvePlan(r *http.Request, id string, kind scouts.EntityKind, in apitype.Approve) ([]engine.PlanChoice, error) {
	if in.Gmail != nil && in.Actions != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "give the plan as actions or the older gmail field, not both")
	}
	if in.Actions != nil {
		out := []engine.PlanChoice{}
		for _, a := range in.Actions {
			if a.N > 0 {
				continue // recorded already (a rule's action run on arrival)
			}
			out = append(out, engine.PlanChoice{Action: a.Action, Params: a.Params, Enabled: a.Enabled})
		}
		return out, nil
	}
	if in.Gmail == nil {
		return nil, nil
	}
	p, err := s.core.Engine.Plan(r.Context(), id, kind)
	if err != nil {
		return nil, err
	}
	if len(p.Proposed) == 0 {
		return nil, nil // decided already: approving again changes nothing
	}
	label, _ := json.Marshal(map[string]string{"label": in.Gmail.Label})
	var out []engine.PlanChoice
	for _, st := range p.Proposed {
		c := engine.PlanChoice{Action: st.Action, Params: st.Params, Enabled: st.Enabled}
		switch st.Action {
		case actions.GmailArchive:
			c.Enabled = in.Gmail.Archive
		case actions.GmailLabel:
			c.Enabled = in.Gmail.Label != ""
			if c.Enabled {
				c.Params = label
			}
		}
		out = append(out, c)
	}
	has := func(name string) bool {
		return slices.ContainsFunc(out, func(c engine.PlanChoice) bool { return c.Action == name })
	}
	// Asked for but not proposed (not a Gmail card): the engine says why.
	if in.Gmail.Archive && !has(actions.GmailArchive) {
		out = append(out, engine.PlanChoice{Action: actions.GmailArchive, Enabled: true})
	}
	if in.Gmail.Label != "" && !has(actions.GmailLabel) {
		out = append(out, engine.PlanChoice{Action: actions.GmailLabel, Params: label, Enabled: true})
	}
	return out, nil
}

func (s *Server) policies(r *http.Request, scoutID string) (apitype.Policies, error) {
	eng := s.core.Engine
	p, err := eng.Policies(r.Context())
	if err != nil {
		return apitype.Policies{}, err
	}
	defs, err := eng.PlanDefaults(r.Context())
	if err != nil {
		return apitype.Policies{}, err
	}
	out := apitype.Policies{Global: map[string]string{}, Scouts: map[string]map[string]string{},
		Defaults: apitype.PlanDefaults{GmailArchive: defs.GmailArchive, GmailLabel: defs.GmailLabel}, Resolved: []apitype.ResolvedMode{}}
	for a, m := range p.Global {
		out.Global[a] = string(m)
	}
	for id, ms := range p.Scouts {
		out.Scouts[id] = map[string]string{}
		for a, m := range ms {
			out.Scouts[id][a] = string(m)
		}
	}
	for _, d := range eng.Actions() {
		res := p.Resolve(d, scoutID)
		out.Resolved = append(out.Resolved, apitype.ResolvedMode{Action: d.Name, Risk: string(d.Risk), Mode: string(res.Mode), Source: string(res.Source)})
	}
	return out, nil
}

func (s *Server) handleGetPolicies(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("scout_id")
	if id != "" {
		if _, err := s.core.DB.GetScout(r.Context(), id); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	out, err := s.policies(r, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handlePutPolicies(w http.ResponseWriter, r *http.Request) {
	var in apitype.PutPolicies
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	var defs *engine.PlanDefaults
	if in.Defaults != nil {
		defs = &engine.PlanDefaults{GmailArchive: in.Defaults.GmailArchive, GmailLabel: in.Defaults.GmailLabel}
		if err := defs.Validate(); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	var changes []engine.PolicyChange
	add := func(scoutID, action string, mode *string) {
		c := engine.PolicyChange{ScoutID: scoutID, Action: action}
		if mode != nil {
			c.Mode = actions.Mode(*mode)
		}
		changes = append(changes, c)
	}
	for a, m := range in.Global {
		add("", a, m)
	}
	for id, ms := range in.Scouts {
		if id == "" {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "scouts: a scout id is required (global modes go in global)"))
			return
		}
		for a, m := range ms {
			add(id, a, m)
		}
	}
	if len(changes) > 0 {
		if err := s.core.Engine.SetPolicies(r.Context(), changes, actor(r)); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if defs != nil {
		if err := s.core.Engine.SetPlanDefaults(r.Context(), *defs, actor(r)); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	out, err := s.policies(r, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
