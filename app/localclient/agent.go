package localclient

import (
	"context"
	"net/url"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Propose sends an AI agent's proposal: it becomes a card in the agent's
// own scout (or is the card the same proposal made before).
func (c *Client) Propose(ctx context.Context, p apitype.AgentProposal) (apitype.AgentProposalResult, error) {
	var out apitype.AgentProposalResult
	return out, c.call(ctx, "POST", "/api/v1/agents/proposals", p, &out)
}

// RejectWithNote rejects a suggestion with the person's note, which
// whoever proposed it reads back.
func (c *Client) RejectWithNote(ctx context.Context, id, note string) (apitype.Suggestion, error) {
	var out apitype.Suggestion
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/reject", apitype.Reject{Note: note}, &out)
}

// MCPServe reports Scouts' MCP endpoint over HTTP: on or off, its address
// and its token.
func (c *Client) MCPServe(ctx context.Context) (apitype.MCPServe, error) {
	var out apitype.MCPServe
	return out, c.call(ctx, "GET", "/api/v1/mcp/serve", nil, &out)
}

// SetMCPHTTP switches Scouts' MCP endpoint over HTTP on or off.
func (c *Client) SetMCPHTTP(ctx context.Context, on bool) (apitype.MCPServe, error) {
	var out apitype.MCPServe
	return out, c.call(ctx, "PUT", "/api/v1/mcp/serve", map[string]bool{"http": on}, &out)
}
