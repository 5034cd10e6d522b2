package localapi

import (
	"net/http"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/apitype"
)

// Alarms (docs/api.md, "Alarms").

func (s *Server) alarmRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/alarms", s.handleListAlarms)
	m.HandleFunc("POST /api/v1/alarms/{id}/ack", s.handleAckAlarm)
}

// handleListAlarms lists the live alarms; ?all=1 adds the resolved ones
// kept.
func (s *Server) handleListAlarms(w http.ResponseWriter, r *http.Request) {
	list, err := s.core.Alarms(r.Context(), r.URL.Query().Get("all") == "1")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]apitype.Alarm, 0, len(list))
	for _, a := range list {
		out = append(out, toAlarm(a))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAckAlarm(w http.ResponseWriter, r *http.Request) {
	a, err := s.core.AckAlarm(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toAlarm(a))
}

func toAlarm(a alarms.Alarm) apitype.Alarm {
	return apitype.Alarm{ID: a.ID, DedupeKey: a.Key, Kind: a.Kind, Severity: string(a.Severity), ScoutID: a.ScoutID,
		Status: string(a.Status), Message: a.Message, RaisedAt: a.RaisedAt, UpdatedAt: a.UpdatedAt, AcknowledgedAt: a.AckedAt,
		ResolvedAt: a.ResolvedAt}
}

// openAlarms counts the alarms raised and not yet acknowledged.
func (s *Server) openAlarms(r *http.Request) (int, error) {
	list, err := s.core.Alarms(r.Context(), false)
	n := 0
	for _, a := range list {
		if a.Status == alarms.Open {
			n++
		}
	}
	return n, err
}

func ptrInt(n int) *int { return &n }
