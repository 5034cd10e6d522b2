package localapi

import (
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/scouts"
)

// Keyring is the agent's keyring as the API shows and switches it.
type Keyring interface {
	KeyringStatus() apitype.Keyring
	// UseFileKeyring switches the running agent to its encrypted file
	// keyring (for a machine without a desktop keyring).
	UseFileKeyring() (apitype.Keyring, error)
}

func (s *Server) keyringRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/keyring", func(w http.ResponseWriter, r *http.Request) {
		if s.keyring == nil {
			s.fail(w, r, scouts.Errorf(scouts.EUnavailable, "this agent has no keyring"))
			return
		}
		writeJSON(w, http.StatusOK, s.keyring.KeyringStatus())
	})
	m.HandleFunc("POST /api/v1/keyring/file", func(w http.ResponseWriter, r *http.Request) {
		if s.keyring == nil {
			s.fail(w, r, scouts.Errorf(scouts.EUnavailable, "this agent has no keyring"))
			return
		}
		k, err := s.keyring.UseFileKeyring()
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, k)
	})
}
