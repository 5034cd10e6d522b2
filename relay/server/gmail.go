package server

import (
	"errors"
	"io"
	"net/http"

	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/relay/service"
)

// handleGmailPush receives Gmail's notifications from Pub/Sub: check who
// sent it, have the service keep it (service.Push), answer 204. An error
// answer would make Pub/Sub back off the whole subscription, so only a
// failure to persist (the hint would be lost) is answered with one —
// Pub/Sub redelivers it; a malformed notification is acknowledged, as
// redelivering it cannot fix it.
func (s *Server) handleGmailPush(w http.ResponseWriter, r *http.Request) {
	if !s.svc.RunsGmail() || s.cfg.PushAuth == nil {
		writeJSONError(w, http.StatusNotFound, "not_found", "this relay does not run Gmail scouts")
		return
	}
	if err := s.cfg.PushAuth.Verify(r.Context(), r); err != nil {
		s.metrics.pushes.WithLabelValues("refused").Inc()
		s.log.Warn("gmail push refused", "remote", r.RemoteAddr, "err", err)
		var pe *pushauth.Error
		if errors.As(err, &pe) {
			writeJSONError(w, http.StatusForbidden, "forbidden", pe.Error())
			return
		}
		writeJSONError(w, http.StatusForbidden, "forbidden", "push refused")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		writeJSONError(w, http.StatusRequestEntityTooLarge, "too_large", "push body over 64 KiB")
		return
	}
	err = s.svc.Push(r.Context(), body)
	switch e := service.AsError(err); {
	case err == nil:
		s.metrics.pushes.WithLabelValues("accepted").Inc()
		w.WriteHeader(http.StatusNoContent)
	case e.Code == service.Malformed:
		s.metrics.pushes.WithLabelValues("malformed").Inc()
		w.WriteHeader(http.StatusNoContent)
	default:
		s.metrics.pushes.WithLabelValues("failed").Inc()
		status, code, msg := httpRefusal(err)
		writeJSONError(w, status, code, msg)
	}
}

// Send delivers a frame to every connected session of a user, without
// queueing it for absent ones (status and mailbox hints are re-derived on
// the next connection).
func (s *Server) Send(userID, typ string, data any) {
	b, err := protocol.Encode(typ, "", 0, data)
	if err != nil {
		s.log.Error("encode frame", "type", typ, "err", err)
		return
	}
	s.hub.send(userID, b)
}
