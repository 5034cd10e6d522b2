package localapi

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
)

// MCPPath is where Scouts' MCP server answers over streamable HTTP on the
// TCP listener, when the person switched it on.
const MCPPath = "/mcp"

func (s *Server) agentRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /api/v1/agents/proposals", s.handleAgentProposal)
	m.HandleFunc("GET /api/v1/mcp/serve", s.handleGetMCPServe)
	m.HandleFunc("PUT /api/v1/mcp/serve", s.handlePutMCPServe)
}

// handleAgentProposal makes an AI agent's proposal a card (201), or
// answers the card the same proposal made before (200).
func (s *Server) handleAgentProposal(w http.ResponseWriter, r *http.Request) {
	var in apitype.AgentProposal
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	p := core.AgentProposal{Client: in.Client, Kind: scouts.EntityKind(strings.ToLower(strings.TrimSpace(in.Kind))), Title: in.Title, Body: in.Body,
		URL: in.URL, Reason: in.Reason, AllDay: in.AllDay, Action: in.Action, Params: in.Params, Key: in.Key}
	for _, f := range []struct {
		name, v string
		dst     *time.Time
	}{{"due", in.Due, &p.Due}, {"starts_at", in.StartsAt, &p.StartsAt}, {"ends_at", in.EndsAt, &p.EndsAt}} {
		t, err := parseTime(f.name, f.v)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		*f.dst = t
	}
	sug, created, err := s.core.ProposeFromAgent(r.Context(), p)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, apitype.AgentProposalResult{Suggestion: toSuggestion(sug), Created: created})
}

func (s *Server) mcpServe(r *http.Request) (apitype.MCPServe, error) {
	on, err := s.core.MCPHTTP(r.Context())
	if err != nil {
		return apitype.MCPServe{}, err
	}
	out := apitype.MCPServe{HTTP: on, Path: MCPPath, Token: s.mcpToken}
	if a, ok := s.tcpAddr.Load().(*net.TCPAddr); ok && a != nil {
		out.URL = "http://127.0.0.1:" + strconv.Itoa(a.Port) + MCPPath
	}
	return out, nil
}

func (s *Server) handleGetMCPServe(w http.ResponseWriter, r *http.Request) {
	out, err := s.mcpServe(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handlePutMCPServe(w http.ResponseWriter, r *http.Request) {
	var in struct {
		HTTP *bool `json:"http"`
	}
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if in.HTTP == nil {
		s.fail(w, r, scouts.Errorf(scouts.EInvalid, "http is required (true or false)"))
		return
	}
	if *in.HTTP && (s.mcp == nil || s.mcpToken == "") {
		s.fail(w, r, scouts.Errorf(scouts.EUnavailable, "this agent has no MCP endpoint to switch on"))
		return
	}
	if err := s.core.SetMCPHTTP(r.Context(), *in.HTTP); err != nil {
		s.fail(w, r, err)
		return
	}
	s.handleGetMCPServe(w, r)
}

// serveMCP guards the MCP endpoint on the TCP listener (Host and Origin
// were checked before): it answers only when the person switched it on,
// and only to its own token — the local API's token does not open it, nor
// does its token open the rest of the API.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	on, err := s.core.MCPHTTP(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !on || s.mcp == nil || s.mcpToken == "" {
		writeError(w, http.StatusNotFound, "not_found", "Scouts' MCP endpoint over HTTP is off (switch it on: scouts mcp http on)")
		return
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.mcpToken)) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="scouts-mcp"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token (see mcp.token in the data directory)")
		return
	}
	s.mcp.ServeHTTP(w, r)
}
