// Package mcpserve is Scouts as a Model Context Protocol server: the
// approval inbox for AI agents. An agent reads what waits for the person
// (list_pending_suggestions, get_suggestion) and what the person has
// (list_tasks, list_notes, list_events), and proposes — a task, note,
// event, or an action from the catalogue — with its one write tool,
// propose. A proposal becomes a card in a scout of the agent's own (kind
// agent, one per client, named by the client) and goes through the same
// rules, learner, lanes and modes as any card; get_decision tells the
// agent what the person decided.
//
// No tool approves, rejects or runs anything: the server holds only a
// local API client (app/localclient), like every command of the CLI, and
// the only write it sends is POST /api/v1/agents/proposals. It runs on
// stdio (scouts mcp serve) and over streamable HTTP inside the agent
// (the local API's /mcp, off by default, with its own token).
package mcpserve

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/scouts-hq/scouts/app/localclient"
)

// Options configure the server.
type Options struct {
	// API is the agent's local API.
	API *localclient.Client
	// Version is Scouts' version, told to clients.
	Version string
	// MaxWait bounds how long get_decision waits for a decision when asked
	// to (default and ceiling: 10 minutes).
	MaxWait time.Duration
	// ProgressEvery is how often a waiting get_decision tells the client it
	// is still waiting (default 15 s); one notification is sent as soon as
	// the wait starts.
	ProgressEvery time.Duration
	Logger        *slog.Logger
}

// DefaultMaxWait is the longest get_decision waits.
const DefaultMaxWait = 10 * time.Minute

// unnamed names a client that did not say its name.
const unnamed = "unnamed agent"

const instructions = `Scouts is the person's approval inbox. Read what waits for them and what they have (tasks, notes, events; search finds any of it). ` +
	`To get something done that needs their consent — a task, a note, an event, or an action from Scouts' catalogue — call propose: ` +
	`it becomes a card they decide in Scouts, and nothing happens before they approve it. ` +
	`Then call get_decision with the card's id (wait_seconds to wait for it): approved with what was created, or rejected with their note.`

// server holds what every tool needs.
type server struct {
	api     *localclient.Client
	maxWait time.Duration
	every   time.Duration
	log     *slog.Logger
}

// New returns Scouts' MCP server with its tools.
func New(opts Options) *mcp.Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxWait <= 0 || opts.MaxWait > DefaultMaxWait {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 15 * time.Second
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := &server{api: opts.API, maxWait: opts.MaxWait, every: opts.ProgressEvery, log: opts.Logger}
	srv := mcp.NewServer(&mcp.Implementation{Name: "scouts", Title: "Scouts", Version: version},
		&mcp.ServerOptions{Instructions: instructions, Logger: opts.Logger})
	s.addReadTools(srv)
	s.addSearchTool(srv)
	s.addProposeTools(srv)
	return srv
}

// Handler serves the server over streamable HTTP (one session per
// client); the caller guards it (the local API's token and origin checks).
func Handler(opts Options) http.Handler {
	srv := New(opts)
	// A session's recent events are kept (in memory, bounded by the SDK)
	// so that a client whose stream dropped while get_decision waited
	// resumes it instead of losing the answer.
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil), Logger: opts.Logger})
}

// RunStdio serves one client on standard input and output until it goes
// away or ctx ends.
func RunStdio(ctx context.Context, opts Options) error {
	return New(opts).Run(ctx, &mcp.StdioTransport{})
}

// clientName is the calling agent's name: the name its requests carry
// (protocol 2026-07-28 sends it with each request), else the one it gave
// in initialize. It names the agent's scout.
func clientName(req *mcp.CallToolRequest) string {
	if req.Params != nil {
		if m := req.Params.GetMeta(); m != nil {
			if ci, ok := m[mcp.MetaKeyClientInfo].(map[string]any); ok {
				if n, ok := ci["name"].(string); ok && strings.TrimSpace(n) != "" {
					return strings.TrimSpace(n)
				}
			}
		}
	}
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && strings.TrimSpace(p.ClientInfo.Name) != "" {
			return strings.TrimSpace(p.ClientInfo.Name)
		}
	}
	return unnamed
}
