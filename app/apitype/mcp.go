package apitype

import (
	"encoding/json"
	"time"
)

// MCPServer is another MCP server whose tools are actions (mcp.<server>.<tool>,
// docs/mcp.md): GET /api/v1/mcp/servers lists them. Environment, headers
// and the bearer token name secrets (scouts secrets); no value is ever
// stored or shown.
type MCPServer struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"` // stdio or http
	Command   []string          `json:"command,omitempty"`
	URL       string            `json:"url,omitempty"`
	Env       map[string]string `json:"env,omitempty"`     // variable → secret name
	Headers   map[string]string `json:"headers,omitempty"` // header → secret name
	// TokenSecret names the secret sent as "Authorization: Bearer".
	TokenSecret string `json:"token_secret,omitempty"`
	// Trusted: the person believes the server's readOnlyHint, so its
	// read-only tools default to allow.
	Trusted bool `json:"trusted"`
	// PinnedSet and SeenSet hash the tool set as last approved and as
	// last listed: equal, nothing of the set changed.
	PinnedSet string     `json:"pinned_set,omitempty"`
	SeenSet   string     `json:"seen_set,omitempty"`
	SeenAt    *time.Time `json:"seen_at,omitempty"`
	LastError string     `json:"last_error,omitempty"`
	// Drifted counts the tools waiting for the person's review (changed or
	// new since the pins).
	Drifted   int       `json:"drifted"`
	Tools     []MCPTool `json:"tools"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// MCPTool is one tool of a server with its state: unchanged (runs),
// tightened, changed or new (blocked until approved), removed (cannot
// run). A changed tool carries its approved and listed definitions side
// by side in Diff.
type MCPTool struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	Status string `json:"status"`
	Risk   string `json:"risk"`
	// Mode is what its action resolves to globally (allow,
	// require_approval, deny) and ModeSource from where (risk, global,
	// blocked).
	Mode        string `json:"mode"`
	ModeSource  string `json:"mode_source"`
	Blocked     string `json:"blocked,omitempty"` // why it cannot run; "" when it can
	Description string `json:"description,omitempty"`
	PinnedHash  string `json:"pinned_hash,omitempty"`
	SeenHash    string `json:"seen_hash,omitempty"`
	// Pinned and Seen are the approved and the last listed definitions
	// (name, title, description, inputSchema, outputSchema, annotations).
	Pinned     json.RawMessage `json:"pinned,omitempty"`
	Seen       json.RawMessage `json:"seen,omitempty"`
	Diff       []MCPDiffRow    `json:"diff,omitempty"`
	ApprovedAt *time.Time      `json:"approved_at,omitempty"`
	ApprovedBy string          `json:"approved_by,omitempty"`
}

// MCPDiffRow is one line of a side-by-side diff: op is "same", "changed",
// "removed" (old only) or "added" (new only).
type MCPDiffRow struct {
	Op  string `json:"op"`
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// AddMCPServer is POST /api/v1/mcp/servers: a command (stdio) or a URL
// (streamable HTTP), not both.
type AddMCPServer struct {
	Name        string            `json:"name"`
	Command     []string          `json:"command,omitempty"`
	URL         string            `json:"url,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	TokenSecret string            `json:"token_secret,omitempty"`
	Trusted     bool              `json:"trusted,omitempty"`
}

// MCPApprove is POST /api/v1/mcp/servers/{name}/approve: one tool, or
// every tool waiting for review when Tool is empty.
type MCPApprove struct {
	Tool string `json:"tool,omitempty"`
}

// MCPApproved answers an approval: the tools pinned (or forgotten, when
// no longer listed) and the server as it is now.
type MCPApproved struct {
	Approved []string  `json:"approved"`
	Server   MCPServer `json:"server"`
}

// MCPTrust is POST /api/v1/mcp/servers/{name}/trust.
type MCPTrust struct {
	Trusted bool `json:"trusted"`
}
