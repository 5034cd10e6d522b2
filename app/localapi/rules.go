package localapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/rulebook"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// Rules: a scout's rules, their schema and their preview (docs/rules.md).

func (s *Server) ruleRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/schema/rules", s.handleRulesSchema)
	m.HandleFunc("GET /api/v1/scouts/{id}/rules", s.handleListRules)
	m.HandleFunc("POST /api/v1/scouts/{id}/rules", s.handleAddRule)
	m.HandleFunc("POST /api/v1/scouts/{id}/rules/reorder", s.handleReorderRules)
	m.HandleFunc("POST /api/v1/scouts/{id}/rules/preview", s.handlePreviewRule)
	m.HandleFunc("GET /api/v1/scouts/{id}/rules/{rule_id}", s.handleGetRule)
	m.HandleFunc("PUT /api/v1/scouts/{id}/rules/{rule_id}", s.handlePutRule)
	m.HandleFunc("PATCH /api/v1/scouts/{id}/rules/{rule_id}", s.handlePatchRule)
	m.HandleFunc("DELETE /api/v1/scouts/{id}/rules/{rule_id}", s.handleDeleteRule)
}

func (s *Server) handleRulesSchema(w http.ResponseWriter, r *http.Request) {
	doc, err := s.core.Rules().Schema(r.URL.Query().Get("kind"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	w.WriteHeader(http.StatusOK)
	w.Write(doc)
}

// ruleBody reads a rule document as sent: the grammar checks it, so it is
// not decoded here beyond its size.
func ruleBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, rules.MaxRuleBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, scouts.Errorf(scouts.EInvalid, "rule: the document is larger than %d bytes", rules.MaxRuleBytes)
	}
	if err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "rule: reading the request: %v", err)
	}
	return body, nil
}

func toRule(v rulebook.RuleView) apitype.Rule {
	doc, _ := json.Marshal(v.Rule)
	return apitype.Rule{Rule: doc, Position: v.Position, Relay: v.Relay, Problem: v.Problem, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
}

func (s *Server) ruleList(r *http.Request, scoutID string, views []rulebook.RuleView) (apitype.RuleList, error) {
	sc, err := s.core.DB.GetScout(r.Context(), scoutID)
	if err != nil {
		return apitype.RuleList{}, err
	}
	out := apitype.RuleList{ScoutID: scoutID, Kind: string(sc.Kind), Rules: []apitype.Rule{}, Operators: rules.Operators(), Functions: rules.TemplateFuncs()}
	for _, v := range views {
		out.Rules = append(out.Rules, toRule(v))
	}
	for _, f := range rules.Fields(string(sc.Kind)) {
		out.Fields = append(out.Fields, apitype.RuleField{Name: f.Name, Type: string(f.Type), Doc: f.Doc})
	}
	return out, nil
}

func (s *Server) handleListRules(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	views, err := s.core.Rules().List(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.ruleList(r, id, views)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetRule(w http.ResponseWriter, r *http.Request) {
	views, err := s.core.Rules().List(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, v := range views {
		if v.Rule.ID == r.PathValue("rule_id") {
			writeJSON(w, http.StatusOK, toRule(v))
			return
		}
	}
	s.fail(w, r, scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", r.PathValue("id"), r.PathValue("rule_id")))
}

// handleAddRule adds a rule, last or at ?position=N.
func (s *Server) handleAddRule(w http.ResponseWriter, r *http.Request) {
	pos := -1
	if p := r.URL.Query().Get("position"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "position %q: want a number from 0", p))
			return
		}
		pos = n
	}
	doc, err := ruleBody(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.core.Rules().Add(r.Context(), r.PathValue("id"), doc, pos)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toRule(v))
}

func (s *Server) handlePutRule(w http.ResponseWriter, r *http.Request) {
	doc, err := ruleBody(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.core.Rules().Update(r.Context(), r.PathValue("id"), r.PathValue("rule_id"), doc)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toRule(v))
}

func (s *Server) handlePatchRule(w http.ResponseWriter, r *http.Request) {
	var in apitype.RuleEnabled
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.core.Rules().SetEnabled(r.Context(), r.PathValue("id"), r.PathValue("rule_id"), in.Enabled)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toRule(v))
}

func (s *Server) handleDeleteRule(w http.ResponseWriter, r *http.Request) {
	if err := s.core.Rules().Delete(r.Context(), r.PathValue("id"), r.PathValue("rule_id")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleReorderRules(w http.ResponseWriter, r *http.Request) {
	var in apitype.RuleOrder
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	views, err := s.core.Rules().Reorder(r.Context(), id, in.IDs)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, err := s.ruleList(r, id, views)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handlePreviewRule(w http.ResponseWriter, r *http.Request) {
	doc, err := ruleBody(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p, err := s.core.Rules().Preview(r.Context(), r.PathValue("id"), doc)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := apitype.RulePreview{RuleID: p.RuleID, Matched: p.Matched, Unknown: p.Unknown, NoMatch: p.Missed, Items: []apitype.RulePreviewItem{}}
	for _, it := range p.Items {
		sg := it.Suggestion
		item := apitype.RulePreviewItem{SuggestionID: sg.ID, Title: sg.Title, Sender: sg.Sender, Path: sg.Path, Status: string(sg.Status),
			Lane: string(sg.Lane), Kind: string(sg.ProposedKind), CreatedAt: sg.CreatedAt, Result: it.Result, UnknownFields: it.UnknownFields,
			Why: it.Why, EarlierRule: it.EarlierRule}
		if e := it.Would; e != nil {
			item.Would = &apitype.RuleEffect{Verdict: string(e.Verdict), Lane: string(e.Lane), Kind: string(e.Kind), Title: e.Title,
				ProjectID: e.ProjectID, Due: timePtr(e.Due), Notes: e.Notes}
			for _, a := range e.Actions {
				item.Would.Actions = append(item.Would.Actions, apitype.RuleAction{Action: a.Action, Params: a.Params})
			}
		}
		out.Items = append(out.Items, item)
	}
	writeJSON(w, http.StatusOK, out)
}
