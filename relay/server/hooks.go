package server

import (
	"net/http"
	"strings"

	"github.com/scouts-hq/scouts/relay/service"
)

// MaxHookBody bounds a webhook request's body.
const MaxHookBody = 64 << 10

// HookAccepted is the answer to an accepted webhook request. A duplicate
// (same Idempotency-Key within a day) gets the first answer again.
type HookAccepted struct {
	ID        string `json:"id"`
	Duplicate bool   `json:"duplicate"`
}

// handleHook receives an item for a webhook scout; the service checks,
// seals and queues it (service.Hook).
func (s *Server) handleHook(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		tok = ""
	}
	q, err := s.svc.Hook(r.Context(), service.HookRequest{ScoutID: r.PathValue("scout"), Token: tok,
		Body: http.MaxBytesReader(w, r.Body, MaxHookBody), IdempotencyKey: r.Header.Get("Idempotency-Key")})
	if err != nil {
		status, code, msg := httpRefusal(err)
		s.metrics.hookRequests.WithLabelValues(code).Inc()
		writeJSONError(w, status, code, msg)
		return
	}
	res := "accepted"
	if q.Duplicate {
		res = "duplicate"
	}
	s.metrics.hookRequests.WithLabelValues(res).Inc()
	writeJSON(w, http.StatusAccepted, HookAccepted{ID: q.ID, Duplicate: q.Duplicate})
}
