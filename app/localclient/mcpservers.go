package localclient

import (
	"context"
	"net/url"

	"github.com/scouts-hq/scouts/app/apitype"
)

// MCPServers lists the MCP servers whose tools are actions, each with its
// tools, their pins and drift.
func (c *Client) MCPServers(ctx context.Context) ([]apitype.MCPServer, error) {
	var out []apitype.MCPServer
	return out, c.call(ctx, "GET", "/api/v1/mcp/servers", nil, &out)
}

// MCPServer returns one server.
func (c *Client) MCPServer(ctx context.Context, name string) (apitype.MCPServer, error) {
	var out apitype.MCPServer
	return out, c.call(ctx, "GET", "/api/v1/mcp/servers/"+url.PathEscape(name), nil, &out)
}

// AddMCPServer registers a server and lists its tools once (each blocked
// until approved).
func (c *Client) AddMCPServer(ctx context.Context, in apitype.AddMCPServer) (apitype.MCPServer, error) {
	var out apitype.MCPServer
	return out, c.call(ctx, "POST", "/api/v1/mcp/servers", in, &out)
}

// RemoveMCPServer stops a server and forgets it with its pins.
func (c *Client) RemoveMCPServer(ctx context.Context, name string) error {
	return c.call(ctx, "DELETE", "/api/v1/mcp/servers/"+url.PathEscape(name), nil, nil)
}

// RefreshMCPServer lists a server's tools again now.
func (c *Client) RefreshMCPServer(ctx context.Context, name string) (apitype.MCPServer, error) {
	var out apitype.MCPServer
	return out, c.call(ctx, "POST", "/api/v1/mcp/servers/"+url.PathEscape(name)+"/refresh", nil, &out)
}

// ApproveMCPServer pins a server's tools as listed now: one tool, or every
// tool waiting for review (tool "").
func (c *Client) ApproveMCPServer(ctx context.Context, name, tool string) (apitype.MCPApproved, error) {
	var out apitype.MCPApproved
	return out, c.call(ctx, "POST", "/api/v1/mcp/servers/"+url.PathEscape(name)+"/approve", apitype.MCPApprove{Tool: tool}, &out)
}

// TrustMCPServer says whether a server's read-only hints are believed.
func (c *Client) TrustMCPServer(ctx context.Context, name string, trusted bool) (apitype.MCPServer, error) {
	var out apitype.MCPServer
	return out, c.call(ctx, "POST", "/api/v1/mcp/servers/"+url.PathEscape(name)+"/trust", apitype.MCPTrust{Trusted: trusted}, &out)
}
