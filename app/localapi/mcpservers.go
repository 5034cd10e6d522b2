package localapi

import (
	"encoding/json"
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/mcpclient"
	"github.com/scouts-hq/scouts/scouts"
)

// mcpServerRoutes serves the other MCP servers whose tools are actions
// (app/mcpclient, docs/mcp.md): adding one, listing their tools with
// their pins and drift, approving (pinning) tools, trusting a server's
// read-only hints, listing its tools again, removing it.
func (s *Server) mcpServerRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/mcp/servers", s.handleListMCPServers)
	m.HandleFunc("POST /api/v1/mcp/servers", s.mcpPerson(s.handleAddMCPServer))
	m.HandleFunc("GET /api/v1/mcp/servers/{name}", s.handleGetMCPServer)
	m.HandleFunc("DELETE /api/v1/mcp/servers/{name}", s.mcpPerson(s.handleRemoveMCPServer))
	m.HandleFunc("POST /api/v1/mcp/servers/{name}/refresh", s.handleRefreshMCPServer)
	m.HandleFunc("POST /api/v1/mcp/servers/{name}/approve", s.mcpPerson(s.handleApproveMCPServer))
	m.HandleFunc("POST /api/v1/mcp/servers/{name}/trust", s.mcpPerson(s.handleTrustMCPServer))
}

// mcpPerson refuses a change of what may run when it comes from an AI
// agent through Scouts' own MCP server (client "mcp"): only the person
// adds, approves, trusts or removes a tool server.
func (s *Server) mcpPerson(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Scouts-Client") == "mcp" {
			writeError(w, http.StatusForbidden, "forbidden", "an AI agent cannot add, approve, trust or remove MCP servers: the person does, with scouts mcp or in Settings → Tool servers")
			return
		}
		h(w, r)
	}
}

func (s *Server) handleListMCPServers(w http.ResponseWriter, r *http.Request) {
	all, err := s.core.MCP().Servers(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]apitype.MCPServer, 0, len(all))
	for _, v := range all {
		out = append(out, s.toMCPServer(r, v))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetMCPServer(w http.ResponseWriter, r *http.Request) {
	v, err := s.core.MCP().Server(r.Context(), r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.toMCPServer(r, v))
}

// POST /api/v1/mcp/servers: registered, then listed once (its tools all
// new, so blocked until approved). A server that cannot be reached is
// still added, with its error: the person may fix a secret and refresh.
func (s *Server) handleAddMCPServer(w http.ResponseWriter, r *http.Request) {
	var in apitype.AddMCPServer
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.core.MCP().Add(r.Context(), mcpclient.ServerSpec{Name: in.Name, Command: in.Command, URL: in.URL, Env: in.Env,
		Headers: in.Headers, Bearer: in.TokenSecret, Trusted: in.Trusted}, actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, s.toMCPServer(r, v))
}

func (s *Server) handleRemoveMCPServer(w http.ResponseWriter, r *http.Request) {
	if err := s.core.MCP().Remove(r.Context(), r.PathValue("name"), actor(r)); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// POST /api/v1/mcp/servers/{name}/refresh lists the tools again now: a
// changed or new tool is blocked, with its diff in the answer. A server
// that cannot be reached is 503 with its error.
func (s *Server) handleRefreshMCPServer(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, err := s.core.MCP().Refresh(r.Context(), name); err != nil {
		if scouts.ErrorCode(err) == scouts.EInternal {
			err = scouts.Errorf(scouts.EUnavailable, "%v", err)
		}
		s.fail(w, r, err)
		return
	}
	s.handleGetMCPServer(w, r)
}

func (s *Server) handleApproveMCPServer(w http.ResponseWriter, r *http.Request) {
	var in apitype.MCPApprove
	if r.ContentLength != 0 {
		if err := decode(w, r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	name := r.PathValue("name")
	done, err := s.core.MCP().Approve(r.Context(), name, in.Tool, actor(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.core.MCP().Server(r.Context(), name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if done == nil {
		done = []string{}
	}
	writeJSON(w, http.StatusOK, apitype.MCPApproved{Approved: done, Server: s.toMCPServer(r, v)})
}

func (s *Server) handleTrustMCPServer(w http.ResponseWriter, r *http.Request) {
	var in apitype.MCPTrust
	if err := decode(w, r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.core.MCP().SetTrusted(r.Context(), r.PathValue("name"), in.Trusted, actor(r)); err != nil {
		s.fail(w, r, err)
		return
	}
	s.handleGetMCPServer(w, r)
}

func (s *Server) toMCPServer(r *http.Request, v mcpclient.ServerView) apitype.MCPServer {
	out := apitype.MCPServer{Name: v.Name, Transport: v.Transport, Command: v.Command, URL: v.URL, Env: v.Env, Headers: v.Headers,
		TokenSecret: v.Bearer, Trusted: v.Trusted, PinnedSet: v.PinnedSet, SeenSet: v.SeenSet, SeenAt: timePtr(v.SeenAt),
		LastError: v.LastError, Drifted: v.Drifted, Tools: []apitype.MCPTool{}, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
	for _, t := range v.Tools {
		mt := apitype.MCPTool{Name: t.Name, Action: t.Action, Status: string(t.Status), Risk: string(t.Risk), Blocked: t.Blocked,
			Description: t.Description, PinnedHash: t.PinnedHash, SeenHash: t.SeenHash, ApprovedAt: timePtr(t.ApprovedAt),
			ApprovedBy: t.ApprovedBy}
		if t.Pinned != nil {
			mt.Pinned, _ = json.Marshal(t.Pinned)
		}
		if t.Seen != nil {
			mt.Seen, _ = json.Marshal(t.Seen)
		}
		for _, d := range t.Diff {
			mt.Diff = append(mt.Diff, apitype.MCPDiffRow{Op: d.Op, Old: d.Old, New: d.New})
		}
		if res, err := s.core.Engine.Resolve(r.Context(), "", t.Action); err == nil {
			mt.Mode, mt.ModeSource = string(res.Mode), string(res.Source)
		}
		out.Tools = append(out.Tools, mt)
	}
	return out
}
