package localapi

import (
	"context"
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
)

// runRoutes serves secrets (names only out, values only in), bringing an
// expired suggestion back and a scout's run history.
func (s *Server) runRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/secrets", s.handleListSecrets)
	m.HandleFunc("PUT /api/v1/secrets/{name}", s.handlePutSecret)
	m.HandleFunc("DELETE /api/v1/secrets/{name}", s.handleDeleteSecret)
	m.HandleFunc("POST /api/v1/suggestions/{id}/revive", s.handleRevive)
	m.HandleFunc("GET /api/v1/scouts/{id}/runs", s.handleScoutRuns)
}

// defaultRunsListed is how many runs GET /api/v1/scouts/{id}/runs answers
// without ?limit=.
const defaultRunsListed = 50

// GET /api/v1/scouts/{id}/runs?limit=N: the scout's latest runs, newest
// first, each with the definition version in force when it started.
func (s *Server) handleScoutRuns(w http.ResponseWriter, r *http.Request) {
	limit, err := limitParam(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if limit == 0 {
		limit = defaultRunsListed
	}
	runs, err := s.core.ScoutRuns(r.Context(), r.PathValue("id"), min(limit, scouts.RunsKept))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, convertAll(runs, toRun))
}

func toRun(r scouts.Run) apitype.Run {
	out := apitype.Run{ID: r.ID, ScoutID: r.ScoutID, Trigger: string(r.Trigger), StartedAt: r.StartedAt,
		Outcome: string(r.Outcome), Error: r.Error, Note: r.Note, ItemsSeen: r.Seen, ItemsNew: r.New, DefinitionVersion: r.DefinitionVersion}
	if !r.FinishedAt.IsZero() {
		out.FinishedAt = &r.FinishedAt
	}
	if r.TokensKnown {
		out.ModelTokens = &r.Tokens
	}
	return out
}

func toSchedule(sc scouts.Schedule) apitype.Schedule {
	return apitype.Schedule{Cron: sc.Cron, TimeZone: sc.TimeZone, Overlap: string(sc.Overlap), CatchUp: string(sc.CatchUp)}
}

func fromSchedule(in *apitype.Schedule) *scouts.Schedule {
	if in == nil {
		return nil
	}
	return &scouts.Schedule{Cron: in.Cron, TimeZone: in.TimeZone, Overlap: scouts.Overlap(in.Overlap), CatchUp: scouts.CatchUp(in.CatchUp)}
}

func fromBudget(in *apitype.Budget) *scouts.Budget {
	if in == nil {
		return nil
	}
	return &scouts.Budget{RunTokens: in.RunTokens, DayTokens: in.DayTokens}
}

func toBudgetStatus(b core.BudgetStatus) apitype.BudgetStatus {
	return apitype.BudgetStatus{DayCap: b.DayCap, RunCap: b.RunCap, SpentToday: b.SpentToday, Spent: b.Spent,
		RunSpent: b.RunSpent, ResetsAt: b.ResetsAt, Message: b.Message}
}

// withRuns adds a scout's run settings and their state to its API form.
func (s *Server) withRuns(out apitype.Scout, sc scouts.Scout) apitype.Scout {
	out.Schedule = toSchedule(sc.Schedule)
	out.Budget = apitype.Budget{RunTokens: sc.Budget.RunTokens, DayTokens: sc.Budget.DayTokens}
	out.WriteScope = s.scopeInEffect(context.Background(), sc)
	out.Health.NextRunAt = timePtr(s.core.NextRun(sc))
	rs := s.core.Engine.RunStatus(sc.ID)
	out.Health.ActiveRuns, out.Health.Queued = rs.Active, rs.Queued
	out.Health.Watch = s.core.WatchProblem(sc.ID)
	if b := s.core.BudgetStatus(context.Background(), sc); b.DayCap > 0 {
		st := toBudgetStatus(b)
		out.Health.ModelBudget = &st
	}
	return out
}

// spentBudgets is the status's list of scouts over their model budget.
func (s *Server) spentBudgets(r *http.Request) ([]apitype.SpentBudget, error) {
	list, err := s.core.SpentBudgets(r.Context())
	if err != nil {
		return nil, err
	}
	var out []apitype.SpentBudget
	for _, b := range list {
		out = append(out, apitype.SpentBudget{ScoutID: b.Scout.ID, ScoutName: b.Scout.Name, Message: b.Status.Message, ResetsAt: b.Status.ResetsAt})
	}
	return out, nil
}

// withExpiryReasons says why each expired suggestion of a listing expired.
func (s *Server) withExpiryReasons(r *http.Request, list []scouts.Suggestion, out []apitype.Suggestion) error {
	why, err := s.core.ExpiryReasons(r.Context(), list)
	if err != nil {
		return err
	}
	for i := range out {
		out[i].ExpiredReason = why[out[i].ID]
	}
	return nil
}

func (s *Server) handleListSecrets(w http.ResponseWriter, r *http.Request) {
	names, err := s.core.Secrets().Names(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitype.Secrets{Names: names})
}

func (s *Server) handlePutSecret(w http.ResponseWriter, r *http.Request) {
	var in apitype.SecretValue
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.core.Secrets().Set(r.Context(), r.PathValue("name"), []byte(in.Value)); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleDeleteSecret(w http.ResponseWriter, r *http.Request) {
	if err := s.core.Secrets().Delete(r.Context(), r.PathValue("name")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleRevive(w http.ResponseWriter, r *http.Request) {
	sg, err := s.core.Revive(r.Context(), r.PathValue("id"), actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}
