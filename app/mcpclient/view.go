package mcpclient

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// ServerView is a server as the API and the command line show it.
type ServerView struct {
	localdb.MCPServer
	Transport string     `json:"transport"` // stdio or http
	Tools     []ToolView `json:"tools"`
	// Drifted counts the tools waiting for review (changed or new).
	Drifted int `json:"drifted"`
}

// ToolView is a tool with its state, its action and, when it changed, the
// side-by-side diff of its approved and listed definitions.
type ToolView struct {
	Name   string       `json:"name"`
	Action string       `json:"action"`
	Status Status       `json:"status"`
	Risk   actions.Risk `json:"risk"`
	// Blocked says why its action cannot run; "" when it can.
	Blocked     string      `json:"blocked,omitempty"`
	Description string      `json:"description,omitempty"`
	PinnedHash  string      `json:"pinned_hash,omitempty"`
	SeenHash    string      `json:"seen_hash,omitempty"`
	Pinned      *Definition `json:"pinned,omitempty"`
	Seen        *Definition `json:"seen,omitempty"`
	Diff        []DiffRow   `json:"diff,omitempty"`
	ApprovedAt  time.Time   `json:"approved_at,omitzero"`
	ApprovedBy  string      `json:"approved_by,omitempty"`
}

// Servers lists every server with its tools.
func (m *Manager) Servers(ctx context.Context) ([]ServerView, error) {
	servers, err := m.cfg.Store.MCPServers(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := m.cfg.Store.MCPTools(ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]ServerView, 0, len(servers))
	for _, s := range servers {
		v := ServerView{MCPServer: s, Transport: "stdio", Tools: []ToolView{}}
		if s.URL != "" {
			v.Transport = "http"
		}
		for _, t := range tools {
			if t.Server != s.Name {
				continue
			}
			tv := toolView(t, s.Trusted)
			if tv.Status.Drift() {
				v.Drifted++
			}
			v.Tools = append(v.Tools, tv)
		}
		out = append(out, v)
	}
	return out, nil
}

// Server returns one server.
func (m *Manager) Server(ctx context.Context, name string) (ServerView, error) {
	if _, err := m.server(ctx, name); err != nil {
		return ServerView{}, err
	}
	all, err := m.Servers(ctx)
	if err != nil {
		return ServerView{}, err
	}
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	return ServerView{}, nil
}

func toolView(t localdb.MCPTool, trusted bool) ToolView {
	d := toolDef(t, trusted)
	v := ToolView{Name: t.Name, Action: d.Name, Risk: d.Risk, Blocked: d.Blocked, Description: d.Description,
		PinnedHash: t.PinnedHash, SeenHash: t.SeenHash, ApprovedAt: t.ApprovedAt, ApprovedBy: t.ApprovedBy}
	pinned, hasPin := decodeDef(t.Pinned)
	seen, hasSeen := decodeDef(t.Seen)
	if hasPin {
		v.Pinned = &pinned
	}
	if hasSeen {
		v.Seen = &seen
	}
	switch {
	case !hasPin:
		v.Status = StatusNew
	case !hasSeen:
		v.Status = StatusRemoved
	case t.PinnedHash == t.SeenHash:
		v.Status = StatusUnchanged
	default:
		v.Status = StatusChanged
		v.Diff = SideBySide(pinned, seen)
	}
	return v
}
