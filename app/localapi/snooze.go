package localapi

import (
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Snooze (docs/api.md, "Snooze").

func (s *Server) handleSnooze(w http.ResponseWriter, r *http.Request) {
	var in apitype.Snooze
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	sg, err := s.core.Snooze(r.Context(), r.PathValue("id"), in.Until, actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}

func (s *Server) handleUnsnooze(w http.ResponseWriter, r *http.Request) {
	sg, err := s.core.Unsnooze(r.Context(), r.PathValue("id"), actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSuggestion(sg))
}

func (s *Server) handleSnoozeTask(w http.ResponseWriter, r *http.Request) {
	var in apitype.Snooze
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	e, until, err := s.core.SnoozeTask(r.Context(), r.PathValue("id"), in.Until, actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitype.SnoozedTask{Task: toEntity(e), SnoozedUntil: until})
}
