package localapi

import (
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/relaylink"
)

func toRelayStatus(d relaylink.Status) apitype.RelayStatus {
	return apitype.RelayStatus{URL: d.URL, Source: d.Source, State: d.State, Error: d.Error, Since: d.Since,
		NextRetry: timePtr(d.NextRetry), DeviceID: d.DeviceID, UserEmail: d.UserEmail, Outbox: d.Outbox, LastSeq: d.LastSeq}
}

func (s *Server) handleGetRelay(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, toRelayStatus(s.core.Relay().Status(r.Context())))
}

// handlePutRelay logs in to a relay. The token in the body goes to the
// keyring only: the request log has no bodies, and no answer repeats it.
func (s *Server) handlePutRelay(w http.ResponseWriter, r *http.Request) {
	var in apitype.RelayLogin
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	st, err := s.core.Relay().Login(r.Context(), in.URL, in.Token)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toRelayStatus(st))
}

func (s *Server) handleDeleteRelay(w http.ResponseWriter, r *http.Request) {
	out, err := s.core.Relay().Logout(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitype.RelayLogout{URL: out.URL, TokenDeleted: out.TokenDeleted})
}
