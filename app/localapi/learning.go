package localapi

import (
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Lanes and the learner.

func (s *Server) handleMarkSpam(w http.ResponseWriter, r *http.Request) {
	sg, err := s.core.Engine.MarkSpam(r.Context(), r.PathValue("id"), actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}

func (s *Server) handleBringBack(w http.ResponseWriter, r *http.Request) {
	sg, err := s.core.Engine.BringBack(r.Context(), r.PathValue("id"), actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}

func (s *Server) handleScreen(w http.ResponseWriter, r *http.Request) {
	sg, err := s.core.Engine.Screen(r.Context(), r.PathValue("id"), actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}

func (s *Server) learning(r *http.Request, scoutID string) (apitype.Learning, error) {
	if _, err := s.core.DB.GetScout(r.Context(), scoutID); err != nil {
		return apitype.Learning{}, err
	}
	st, err := s.core.DB.LearnState(r.Context(), scoutID)
	if err != nil {
		return apitype.Learning{}, err
	}
	n, err := s.core.DB.LearnStats(r.Context(), scoutID)
	if err != nil {
		return apitype.Learning{}, err
	}
	return apitype.Learning{ScoutID: scoutID, Decisions: st.Decisions, Spam: st.Spam, Ham: st.Ham,
		State: st.Learning(), Trained: st.Trained(), Features: n, ResetAt: timePtr(st.ResetAt),
		Settings: apitype.LearnSettings{ColdStart: st.Settings.ColdStart, ScreenBelow: st.Settings.ScreenBelow,
			SpamAbove: st.Settings.SpamAbove, MinSpam: st.Settings.MinSpam, SilenceDays: &st.Settings.SilenceDays, PendingCap: ptrInt(st.Settings.Cap()),
			PendingActionsCap: ptrInt(st.Settings.ActionsCap()), CooldownSeconds: ptrInt(int(st.Settings.Cooldown().Seconds())),
			NotifyPerHour: ptrInt(st.Settings.StormCap()), QuietStart: &st.Settings.QuietStart, QuietEnd: &st.Settings.QuietEnd}}, nil
}

func (s *Server) handleGetLearning(w http.ResponseWriter, r *http.Request) {
	l, err := s.learning(r, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, l)
}

func (s *Server) handlePutLearning(w http.ResponseWriter, r *http.Request) {
	var in apitype.LearnSettings
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	cur, err := s.core.DB.LearnState(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// A body without the grace period of implicit feedback keeps the
	// scout's value rather than turning it off; so do the caps and the
	// gates of its actions, so that a client written before them does
	// not reset what the definition set.
	set := cur.Settings
	set.ColdStart, set.ScreenBelow, set.SpamAbove, set.MinSpam = in.ColdStart, in.ScreenBelow, in.SpamAbove, in.MinSpam
	if in.SilenceDays != nil {
		set.SilenceDays = *in.SilenceDays
	}
	if in.PendingCap != nil {
		set.PendingCap = *in.PendingCap
	}
	if in.PendingActionsCap != nil {
		set.PendingActionsCap = *in.PendingActionsCap
	}
	if in.CooldownSeconds != nil {
		set.CooldownSeconds = *in.CooldownSeconds
	}
	if in.NotifyPerHour != nil {
		set.NotifyPerHour = *in.NotifyPerHour
	}
	if in.QuietStart != nil {
		set.QuietStart = *in.QuietStart
	}
	if in.QuietEnd != nil {
		set.QuietEnd = *in.QuietEnd
	}
	if err := s.core.Definitions().SetLearnSettings(r.Context(), r.PathValue("id"), set); err != nil {
		s.fail(w, r, err)
		return
	}
	s.handleGetLearning(w, r)
}

func (s *Server) handleResetLearning(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.core.DB.GetScout(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.core.Engine.ResetLearner(r.Context(), id, actor(r)); err != nil {
		s.fail(w, r, err)
		return
	}
	s.handleGetLearning(w, r)
}
