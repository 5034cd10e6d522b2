package apitype

import "encoding/json"

// AgentProposal is the body of POST /api/v1/agents/proposals: what an AI
// agent connected to Scouts' MCP server proposes (scouts mcp serve sends
// it). It becomes a card in the agent's own scout; nothing happens before
// a person approves it.
type AgentProposal struct {
	// Client is the agent's name (the MCP client's name from initialize);
	// one scout per client.
	Client string `json:"client"`
	// Kind is task (default), note, event or project.
	Kind   string `json:"kind,omitempty"`
	Title  string `json:"title"`
	Body   string `json:"body,omitempty"`
	URL    string `json:"url,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Due (a task), StartsAt and EndsAt (an event): RFC 3339 or YYYY-MM-DD.
	Due      string `json:"due,omitempty"`
	StartsAt string `json:"starts_at,omitempty"`
	EndsAt   string `json:"ends_at,omitempty"`
	AllDay   bool   `json:"all_day,omitempty"`
	// Action and Params: an action from GET /api/v1/actions proposed with
	// the card, checked now, run only if the card is approved.
	Action string          `json:"action,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	// Key makes a retried proposal the same card.
	Key string `json:"key,omitempty"`
}

// AgentProposalResult answers a proposal: the card, and whether this
// request made it (false: the same proposal was made before).
type AgentProposalResult struct {
	Suggestion Suggestion `json:"suggestion"`
	Created    bool       `json:"created"`
}

// Reject is the optional body of POST /api/v1/suggestions/{id}/reject.
type Reject struct {
	// Note says why, for whoever proposed the card (an AI agent reads it
	// back); kept on the card's trail.
	Note string `json:"note,omitempty"`
}

// MCPServe is GET/PUT /api/v1/mcp/serve: Scouts' own MCP server over
// streamable HTTP on the local API's TCP listener.
type MCPServe struct {
	// HTTP turns the endpoint on (off by default).
	HTTP bool `json:"http"`
	// Path is where it answers on the TCP listener (/mcp); URL the whole
	// address when the agent listens on TCP. Read only.
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`
	// Token is the endpoint's own bearer token (DATA/mcp.token), not the
	// local API's. Read only.
	Token string `json:"token,omitempty"`
}
