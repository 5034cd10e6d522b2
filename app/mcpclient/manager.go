package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// Store is what the manager keeps in the agent's database (app/localdb).
type Store interface {
	AddMCPServer(ctx context.Context, s localdb.MCPServer, audit ...scouts.AuditEvent) error
	SetMCPServerTrusted(ctx context.Context, name string, trusted bool, at time.Time, audit ...scouts.AuditEvent) error
	RemoveMCPServer(ctx context.Context, name string, audit ...scouts.AuditEvent) error
	MCPServers(ctx context.Context) ([]localdb.MCPServer, error)
	MCPTools(ctx context.Context, server string) ([]localdb.MCPTool, error)
	SaveMCPListing(ctx context.Context, l localdb.MCPListing, audit ...scouts.AuditEvent) error
	StartMCPCall(ctx context.Context, key string, at time.Time) (bool, error)
	FinishMCPCall(ctx context.Context, key string, at time.Time) error
}

// Config wires a manager.
type Config struct {
	Store Store
	// Secret reads a secret's value by name (app/secretref): a server's
	// environment, headers and bearer token.
	Secret func(ctx context.Context, name string) ([]byte, error)
	Logger *slog.Logger
	Now    func() time.Time
	// Emit announces a change of servers or tools (EventChanged).
	Emit func(scouts.Event)
	// IdleTimeout stops a server's process (or closes its connection)
	// this long after its last use. Default 5 minutes.
	IdleTimeout time.Duration
	// Backoff is the first wait before a crashed server is started again,
	// doubling up to a minute. Default 1 second.
	Backoff time.Duration
}

// Audit and event types of MCP servers.
const (
	AuditServerAdded   = "mcp.server_added"
	AuditServerRemoved = "mcp.server_removed"
	AuditServerTrusted = "mcp.server_trusted"
	AuditToolPinned    = "mcp.tool_pinned"    // approved: its definition pinned
	AuditToolDrift     = "mcp.tool_drift"     // changed or new since the pins: blocked
	AuditToolRemoved   = "mcp.tool_removed"   // a pinned tool no longer listed
	AuditToolTightened = "mcp.tool_tightened" // hints claiming less safety: the pin follows
	EventChanged       = "mcp.changed"
)

// Manager keeps the registry, the servers' connections and the catalogue
// entries of their tools.
type Manager struct {
	cfg Config
	log *slog.Logger

	mu    sync.Mutex
	conns map[string]*conn
	ctx   context.Context // the agent's: connections and restarts live under it
	stop  context.CancelFunc

	defs atomic.Pointer[[]actions.Def] // the tools as actions, rebuilt on each change

	recordMu sync.Mutex // one listing or approval at a time

	progress progressTable // the calls in flight, for their progress
}

// New returns a manager; call Start to load the registry.
func New(cfg Config) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Emit == nil {
		cfg.Emit = func(scouts.Event) {}
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 5 * time.Minute
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	m := &Manager{cfg: cfg, log: cfg.Logger, conns: map[string]*conn{}}
	m.ctx, m.stop = context.WithCancel(context.Background())
	m.defs.Store(&[]actions.Def{})
	return m
}

// Start reads the registry and builds the catalogue entries. No server
// is started: each starts when first needed.
func (m *Manager) Start(ctx context.Context) error { return m.rebuild(ctx) }

// Close stops every server.
func (m *Manager) Close() {
	m.stop()
	m.mu.Lock()
	conns := slices.Collect(maps.Values(m.conns))
	m.conns = map[string]*conn{}
	m.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// ServerSpec is what adding a server takes.
type ServerSpec struct {
	Name    string            `json:"name"`
	Command []string          `json:"command,omitempty"`
	URL     string            `json:"url,omitempty"`
	Env     map[string]string `json:"env,omitempty"`     // variable → secret name
	Headers map[string]string `json:"headers,omitempty"` // header → secret name
	Bearer  string            `json:"bearer_secret,omitempty"`
	Trusted bool              `json:"trusted,omitempty"`
}

// checkName keeps a server's name usable in an action's name
// (mcp.<server>.<tool>): lower-case letters, digits, dashes, underscores.
func checkName(name string) error {
	ok := len(name) >= 1 && len(name) <= 40
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
	}
	if !ok {
		return scouts.Errorf(scouts.EInvalid, "server name %q: use 1 to 40 lower-case letters, digits, dashes or underscores", name)
	}
	return nil
}

func secretNameOK(name string) bool {
	if len(name) < 1 || len(name) > 100 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// Add registers a server (nothing is started) and lists its tools once:
// every tool is new, so blocked until the person approves it.
func (m *Manager) Add(ctx context.Context, spec ServerSpec, actor string) (ServerView, error) {
	if err := checkName(spec.Name); err != nil {
		return ServerView{}, err
	}
	switch {
	case len(spec.Command) > 0 && spec.URL != "":
		return ServerView{}, scouts.Errorf(scouts.EInvalid, "a server has a command (stdio) or a URL (streamable HTTP), not both")
	case len(spec.Command) == 0 && spec.URL == "":
		return ServerView{}, scouts.Errorf(scouts.EInvalid, "a server needs a command (scouts mcp add NAME -- COMMAND ARGS…) or a URL (--url)")
	case spec.URL != "":
		u, err := url.Parse(spec.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return ServerView{}, scouts.Errorf(scouts.EInvalid, "the URL %q is not an http(s) URL", spec.URL)
		}
		if u.User != nil {
			return ServerView{}, scouts.Errorf(scouts.EInvalid, "the URL has credentials in it: put the token in a secret (scouts secrets set NAME) and name it with --bearer-secret")
		}
	}
	for k, v := range spec.Env {
		if k == "" || !secretNameOK(v) {
			return ServerView{}, scouts.Errorf(scouts.EInvalid, "env %s: name a secret (VAR=SECRET), never a value", k)
		}
	}
	for k, v := range spec.Headers {
		if k == "" || !secretNameOK(v) {
			return ServerView{}, scouts.Errorf(scouts.EInvalid, "header %s: name a secret (Header=SECRET), never a value", k)
		}
	}
	if spec.Bearer != "" && !secretNameOK(spec.Bearer) {
		return ServerView{}, scouts.Errorf(scouts.EInvalid, "bearer secret %q: name a secret, never a value", spec.Bearer)
	}
	now := m.cfg.Now()
	s := localdb.MCPServer{Name: spec.Name, Command: spec.Command, URL: spec.URL, Env: spec.Env, Headers: spec.Headers,
		Bearer: spec.Bearer, Trusted: spec.Trusted, CreatedAt: now, UpdatedAt: now}
	where := spec.URL
	if where == "" {
		where = spec.Command[0]
	}
	if err := m.cfg.Store.AddMCPServer(ctx, s, m.audit(AuditServerAdded, spec.Name, "",
		fmt.Sprintf("MCP server %s added by %s (%s); its tools wait for approval", spec.Name, actorOr(actor), where), "actor", actorOr(actor))); err != nil {
		return ServerView{}, err
	}
	if _, err := m.Refresh(ctx, spec.Name); err != nil {
		m.log.Warn("mcp: first listing", "server", spec.Name, "err", err)
	}
	return m.Server(ctx, spec.Name)
}

// Remove stops a server and forgets it with its pins.
func (m *Manager) Remove(ctx context.Context, name, actor string) error {
	m.mu.Lock()
	c := m.conns[name]
	delete(m.conns, name)
	m.mu.Unlock()
	if c != nil {
		c.close()
	}
	if err := m.cfg.Store.RemoveMCPServer(ctx, name, m.audit(AuditServerRemoved, name, "",
		fmt.Sprintf("MCP server %s removed by %s, with its pins", name, actorOr(actor)), "actor", actorOr(actor))); err != nil {
		return err
	}
	return m.rebuild(ctx)
}

// SetTrusted says whether a server's read-only hints are believed.
func (m *Manager) SetTrusted(ctx context.Context, name string, trusted bool, actor string) error {
	word := "no longer trusted: its read-only tools need approval"
	if trusted {
		word = "trusted: its tools that say they only read default to allow"
	}
	if err := m.cfg.Store.SetMCPServerTrusted(ctx, name, trusted, m.cfg.Now(), m.audit(AuditServerTrusted, name, "",
		fmt.Sprintf("MCP server %s %s (by %s)", name, word, actorOr(actor)), "actor", actorOr(actor), "trusted", fmt.Sprint(trusted))); err != nil {
		return err
	}
	return m.rebuild(ctx)
}

func (m *Manager) server(ctx context.Context, name string) (localdb.MCPServer, error) {
	all, err := m.cfg.Store.MCPServers(ctx)
	if err != nil {
		return localdb.MCPServer{}, err
	}
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	return localdb.MCPServer{}, scouts.Errorf(scouts.ENotFound, "no MCP server named %s (scouts mcp list)", name)
}

// audit makes one entry of a server's trail.
func (m *Manager) audit(typ, server, tool, summary string, kv ...string) scouts.AuditEvent {
	refs := map[string]string{"mcp_server": server}
	if tool != "" {
		refs["mcp_tool"] = tool
		refs["action"] = ActionName(server, tool)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		refs[kv[i]] = kv[i+1]
	}
	outcome := scouts.OutcomeOK
	if typ == AuditToolDrift {
		outcome = scouts.OutcomeSkipped
	}
	return scouts.AuditEvent{TraceID: "mcp:" + server, Stage: scouts.StageDecision, Type: typ, Outcome: outcome,
		Summary: summary, Refs: refs, At: m.cfg.Now()}
}

func actorOr(a string) string {
	if a == "" {
		return "user"
	}
	return a
}

// ActionName is a tool's action: mcp.<server>.<tool>.
func ActionName(server, tool string) string { return "mcp." + server + "." + tool }

// SplitAction returns an action's server and tool; ok is false for an
// action that is not a tool's.
func SplitAction(action string) (server, tool string, ok bool) {
	const p = "mcp."
	if len(action) <= len(p) || action[:len(p)] != p {
		return "", "", false
	}
	rest := action[len(p):]
	for i := 0; i < len(rest); i++ {
		if rest[i] == '.' {
			return rest[:i], rest[i+1:], i > 0 && i+1 < len(rest)
		}
	}
	return "", "", false
}

func decodeDef(s string) (Definition, bool) {
	if s == "" {
		return Definition{}, false
	}
	var d Definition
	if json.Unmarshal([]byte(s), &d) != nil {
		return Definition{}, false
	}
	return d, true
}
