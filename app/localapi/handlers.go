package localapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

func (s *Server) status(r *http.Request) (apitype.Status, error) {
	st, err := s.core.Status(r.Context())
	if err != nil {
		return apitype.Status{}, err
	}
	out := apitype.Status{
		Version: st.Version, StartedAt: st.StartedAt, DataDir: st.DataDir,
		ScoutsRunning: st.ScoutsRunning, ScoutsTotal: st.ScoutsTotal, Paused: st.Paused,
		Pending: st.Lanes[scouts.LaneInbox], Suggestions: map[string]int{}, Entities: map[string]int{},
		Lanes: map[string]int{},
	}
	for _, l := range []scouts.Lane{scouts.LaneInbox, scouts.LaneScreened, scouts.LaneSpam, scouts.LaneSnoozed} {
		out.Lanes[string(l)] = st.Lanes[l]
	}
	for _, k := range []scouts.Status{scouts.StatusPending, scouts.StatusApproved, scouts.StatusRejected, scouts.StatusExpired} {
		out.Suggestions[string(k)] = st.Suggestions[k]
	}
	for _, k := range scouts.EntityKinds {
		out.Entities[string(k)] = st.Entities[k]
	}
	if out.FailingActions, err = s.core.DB.FailingActions(r.Context()); err != nil {
		return apitype.Status{}, err
	}
	if out.Alarms, err = s.openAlarms(r); err != nil {
		return apitype.Status{}, err
	}
	if rs := s.core.Relay().Status(r.Context()); rs.Configured {
		rel := toRelayStatus(rs)
		out.Relay = &rel
	}
	if out.ModelBudget, err = s.spentBudgets(r); err != nil {
		return apitype.Status{}, err
	}
	return out, nil
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.status(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// Scouts.

func (s *Server) scoutOut(sc scouts.Scout) apitype.Scout {
	// The live runner is the ground truth: an enabled scout whose
	// connector failed to open is enabled but not running.
	out := s.withRuns(toScout(sc, s.core.Engine.IsRunning(sc.ID)), sc)
	// A count that cannot be read shows as none held: the scout is still
	// shown, and its alarm (if any) says the count.
	if n, err := s.core.HeldCount(context.Background(), sc.ID); err == nil && n > 0 {
		out.Held, out.HeldMessage = n, core.HeldText(n)+" — review the inbox to let them in"
	}
	return out
}

func (s *Server) handleListScouts(w http.ResponseWriter, r *http.Request) {
	all, err := s.core.DB.ListScouts(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, convertAll(all, s.scoutOut))
}

func (s *Server) handleGetScout(w http.ResponseWriter, r *http.Request) {
	sc, err := s.core.DB.GetScout(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.scoutOut(sc))
}

func (s *Server) handleCreateScout(w http.ResponseWriter, r *http.Request) {
	var in apitype.CreateScout
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	cfg := map[string]any{}
	if len(in.Config) > 0 {
		if err := json.Unmarshal(in.Config, &cfg); err != nil {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "config must be a JSON object: %v", err))
			return
		}
	}
	if in.Path != "" {
		cfg["path"] = in.Path
	}
	if in.Include != nil {
		cfg["include"] = in.Include
	}
	if in.Exclude != nil {
		cfg["exclude"] = in.Exclude
	}
	if in.IncludeExisting {
		cfg["include_existing"] = true
	}
	raw, _ := json.Marshal(cfg)
	ns := core.NewScout{Kind: scouts.Kind(in.Kind), Name: in.Name, Review: true, Enabled: true, Config: raw}
	if in.Review != nil {
		ns.Review = *in.Review
	}
	if in.Enabled != nil {
		ns.Enabled = *in.Enabled
	}
	ns.Force = in.Force
	if sc := fromSchedule(in.Schedule); sc != nil {
		ns.Schedule = *sc
	}
	if b := fromBudget(in.Budget); b != nil {
		ns.Budget = *b
	}
	if w := fromWriteScope(in.WriteScope); w != nil {
		ns.WriteScope = *w
	}
	created, err := s.core.CreateScout(r.Context(), ns)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := s.scoutOut(created.Scout)
	out.HookToken = created.HookToken
	out.Warnings = created.Warnings
	w.Header().Set("Location", "/api/v1/scouts/"+out.ID)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) handlePatchScout(w http.ResponseWriter, r *http.Request) {
	var in apitype.PatchScout
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	updated, err := s.core.UpdateScout(r.Context(), r.PathValue("id"), core.ScoutPatch{
		Name: in.Name, Enabled: in.Enabled, Review: in.Review, Config: in.Config, Include: in.Include, Exclude: in.Exclude,
		RotateHookToken: in.RotateHookToken, Schedule: fromSchedule(in.Schedule), Budget: fromBudget(in.Budget),
		WriteScope: fromWriteScope(in.WriteScope), WriteFile: r.URL.Query().Get("write_file") == "true",
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := s.scoutOut(updated.Scout)
	out.HookToken = updated.HookToken
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteScout(w http.ResponseWriter, r *http.Request) {
	if err := s.core.DeleteScout(r.Context(), r.PathValue("id")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleRunScout(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.core.DB.GetScout(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	if !s.core.Engine.Trigger(id) {
		s.fail(w, r, scouts.Errorf(scouts.EConflict, "scout %s is not running (disabled, or it failed to start: see its health)", id))
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// Suggestions.

func (s *Server) handleListSuggestions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := localdb.SuggestionFilter{ScoutID: q.Get("scout_id"), TraceID: q.Get("trace_id"), After: q.Get("after_id")}
	if st := q.Get("status"); st != "" && st != "all" {
		f.Status = scouts.Status(st)
		if !f.Status.Valid() {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "status %q: want pending, approved, rejected, expired or all", st))
			return
		}
	}
	limit, err := limitParam(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f.Limit = limit
	if l := q.Get("lane"); l != "" && l != "all" {
		f.Lane, err = scouts.ParseLane(l)
		if err != nil {
			s.fail(w, r, err)
			return
		}
	}
	switch o := q.Get("order"); o {
	case "", "oldest":
	case "newest":
		f.Newest = true
	case "likely":
		f.Likely = true
	default:
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "order %q: want oldest, newest or likely", o))
		return
	}
	list, err := s.core.DB.ListSuggestions(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := convertAll(list, toSuggestion)
	s.withScreenerOffers(r.Context(), list, out)
	if err := s.withExpiryReasons(r, list, out); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetSuggestion(w http.ResponseWriter, r *http.Request) {
	sg, err := s.core.DB.GetSuggestion(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := s.suggestionOut(sg)
	if out.Plan, err = s.plan(r, sg.ID, ""); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request) {
	var in apitype.Approve
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	kind, err := scouts.ParseEntityKind(in.As)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	patch, err := patchFrom(apitype.EntityInput{Title: in.Title, Body: in.Body, Due: in.Due, ProjectID: in.ProjectID,
		StartsAt: in.StartsAt, EndsAt: in.EndsAt, Location: in.Location})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	plan, err := s.approvePlan(r, r.PathValue("id"), kind, in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// The engine records the decision, the entity and the plan's remote
	// actions (in the outbox) in one transaction.
	ent, created, err := s.core.Engine.Approve(r.Context(), r.PathValue("id"),
		engine.Approval{As: kind, Edits: patch, Actor: actor(r), Plan: plan, Always: in.Always})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, toEntity(ent))
}

func (s *Server) handleReject(w http.ResponseWriter, r *http.Request) {
	var in apitype.Reject
	if r.ContentLength != 0 {
		if err := decode(w, r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	sg, err := s.core.Engine.RejectWithNote(r.Context(), r.PathValue("id"), actor(r), in.Note)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}

// actor names who decided, for the audit trail: clients say who they are
// with the X-Scouts-Client header (cli, window, browser, tray).
func actor(r *http.Request) string {
	switch c := r.Header.Get("X-Scouts-Client"); c {
	case "cli", "window", "browser", "tray", "script":
		return "user (" + c + ")"
	}
	return "user"
}

// Entities.

func (s *Server) entityHandler(k scouts.EntityKind, h func(http.ResponseWriter, *http.Request, scouts.EntityKind)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { h(w, r, k) }
}

func (s *Server) handleListEntities(w http.ResponseWriter, r *http.Request, k scouts.EntityKind) {
	var f localdb.EntityFilter
	q := r.URL.Query()
	if d := q.Get("done"); d != "" {
		b, err := strconv.ParseBool(d)
		if err != nil {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "done=%q: want true or false", d))
			return
		}
		f.Done = &b
	}
	f.ProjectID = q.Get("project_id")
	list, err := s.core.DB.ListEntities(r.Context(), k, f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, convertAll(list, toEntity))
}

func (s *Server) handleGetEntity(w http.ResponseWriter, r *http.Request, k scouts.EntityKind) {
	e, err := s.core.DB.GetEntity(r.Context(), k, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toEntity(e))
}

func (s *Server) handleCreateEntity(w http.ResponseWriter, r *http.Request, k scouts.EntityKind) {
	p, err := decodeEntityInput(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	e, err := s.core.CreateEntity(r.Context(), p.Apply(scouts.Entity{Kind: k}))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/"+string(k)+"s/"+e.ID)
	writeJSON(w, http.StatusCreated, toEntity(e))
}

// decodeEntityInput reads the body of an entity create or update.
func decodeEntityInput(w http.ResponseWriter, r *http.Request) (scouts.EntityPatch, error) {
	var in apitype.EntityInput
	if err := decode(w, r, &in); err != nil {
		return scouts.EntityPatch{}, err
	}
	return patchFrom(in)
}

func (s *Server) handlePatchEntity(w http.ResponseWriter, r *http.Request, k scouts.EntityKind) {
	p, err := decodeEntityInput(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	e, err := s.core.UpdateEntity(r.Context(), k, r.PathValue("id"), p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toEntity(e))
}

func (s *Server) handleDeleteEntity(w http.ResponseWriter, r *http.Request, k scouts.EntityKind) {
	if err := s.core.DeleteEntity(r.Context(), k, r.PathValue("id")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Audit.

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := localdb.AuditFilter{TraceID: q.Get("trace_id")}
	if a := q.Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "after=%q is not a number", a))
			return
		}
		f.After = n
	}
	limit, err := limitParam(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f.Limit = limit
	list, err := s.core.DB.ListAudit(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, convertAll(list, toAudit))
}

func (s *Server) handleUndo(w http.ResponseWriter, r *http.Request) {
	sg, err := s.core.Engine.Undo(r.Context(), r.PathValue("id"), actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}

func (s *Server) handleContent(w http.ResponseWriter, r *http.Request) {
	c, err := s.core.Engine.Content(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// The content is shown, never kept: tell every cache so.
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, apitype.Content{Text: c.Text, ContentType: c.ContentType, Truncated: c.Truncated, HTML: c.HTML})
}

func (s *Server) handlePause(paused bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.core.SetPaused(r.Context(), paused); err != nil {
			s.fail(w, r, err)
			return
		}
		s.handleStatus(w, r)
	}
}

func (s *Server) handleSync(w http.ResponseWriter, r *http.Request) {
	s.core.Engine.TriggerAll()
	s.core.Relay().Sync()
	w.WriteHeader(http.StatusAccepted)
}

func toSettings(st core.Settings) apitype.Settings {
	out := apitype.Settings{Notifications: st.Notifications, Autostart: st.Autostart, GmailMode: st.GmailMode}
	if st.QuietHours != nil {
		out.QuietHours = &apitype.QuietHours{Start: st.QuietHours.Start, End: st.QuietHours.End}
	}
	return out
}

func (s *Server) handleGetSettings(w http.ResponseWriter, r *http.Request) {
	st, err := s.core.Settings(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSettings(st))
}

func (s *Server) handlePutSettings(w http.ResponseWriter, r *http.Request) {
	var in apitype.Settings
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	st := core.Settings{Notifications: in.Notifications, Autostart: in.Autostart, GmailMode: in.GmailMode}
	if in.QuietHours != nil {
		st.QuietHours = &core.QuietHours{Start: in.QuietHours.Start, End: in.QuietHours.End}
	}
	st, err := s.core.SetSettings(r.Context(), st)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSettings(st))
}

// limitParam reads the optional ?limit= of a listing.
func limitParam(r *http.Request) (int, error) {
	l := r.URL.Query().Get("limit")
	if l == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 {
		return 0, scouts.Errorf(scouts.EInvalid, "limit %q is not a positive number", l)
	}
	return n, nil
}

// convertAll converts a list for the wire; never nil, so that an empty
// list is [] and not null.
func convertAll[T, U any](in []T, conv func(T) U) []U {
	out := make([]U, 0, len(in))
	for _, v := range in {
		out = append(out, conv(v))
	}
	return out
}

func (s *Server) handleGmailConnect(w http.ResponseWriter, r *http.Request) {
	var in apitype.GmailConnectRequest
	if r.ContentLength != 0 {
		if err := decode(w, r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	u, err := s.core.ConnectGmail(r.Context(), in.AddScout)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitype.GmailConnect{AuthURL: u})
}

func (s *Server) handleGmailAccounts(w http.ResponseWriter, r *http.Request) {
	list, err := s.core.GmailAccounts(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]apitype.GmailAccount, 0, len(list))
	for _, a := range list {
		out = append(out, apitype.GmailAccount{Email: a.Email, ConnectedAt: a.ConnectedAt})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGmailDisconnect(w http.ResponseWriter, r *http.Request) {
	if err := s.core.DisconnectGmail(r.Context(), r.PathValue("email")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
