package mcpclient

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/redact"
)

// ExecutorFor returns the executor of a tool's action
// (engine.Config.ExecutorFor); nil for an action that is not a tool's.
func (m *Manager) ExecutorFor(action string) engine.ActionExecutor {
	if _, _, ok := SplitAction(action); !ok {
		return nil
	}
	return executor{m}
}

type executor struct{ m *Manager }

// Check refuses a tool that cannot run now: unknown, blocked (changed,
// new, no longer listed). The catalogue validated the params against the
// approved input schema before this.
func (x executor) Check(ctx context.Context, inv engine.Invocation) error {
	_, err := x.m.runnable(inv.Action)
	return err
}

// runnable returns the tool's hints if it may run.
func (m *Manager) runnable(action string) (Definition, error) {
	server, tool, _ := SplitAction(action)
	for _, d := range m.Actions() {
		if d.Name != action {
			continue
		}
		if d.Blocked != "" {
			return Definition{}, scouts.Errorf(scouts.EConflict, "%s is blocked: %s", action, d.Blocked)
		}
		rows, err := m.cfg.Store.MCPTools(context.Background(), server)
		if err != nil {
			return Definition{}, err
		}
		for _, r := range rows {
			if r.Name == tool {
				def, _ := decodeDef(r.Pinned)
				return def, nil
			}
		}
	}
	return Definition{}, scouts.Errorf(scouts.ENotFound, "no tool %s on MCP server %s", tool, server)
}

// Execute calls the tool once. Its start is committed first: an attempt
// that finds the previous one interrupted during the call does not call
// again by itself — whether the effect happened is unknown, and a tool's
// idempotentHint is believed only for a trusted server — but fails, so the
// person looks and retries (a retry starts afresh).
func (x executor) Execute(ctx context.Context, inv engine.Invocation) (json.RawMessage, error) {
	m := x.m
	def, err := m.runnable(inv.Action)
	if err != nil {
		return nil, err
	}
	server, tool, _ := SplitAction(inv.Action)
	s, err := m.server(ctx, server)
	if err != nil {
		return nil, err
	}
	interrupted, err := m.cfg.Store.StartMCPCall(ctx, inv.Key, m.cfg.Now())
	if err != nil {
		return nil, err
	}
	idempotent := s.Trusted && def.Annotations.Idempotent != nil && *def.Annotations.Idempotent
	if interrupted && inv.Attempt > 1 && !idempotent {
		m.cfg.Store.FinishMCPCall(context.WithoutCancel(ctx), inv.Key, m.cfg.Now())
		return nil, scouts.Errorf(scouts.EConflict, "the previous attempt was interrupted during the call to %s, so whether it took effect is unknown; "+
			"it is not called again by itself: look, then retry or drop it", inv.Action)
	}
	c, err := m.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	cs, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	var args map[string]any
	if err := json.Unmarshal(inv.Params, &args); err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "%s: params: %v", inv.Action, err)
	}
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	token := "scouts:" + inv.Key
	params.SetProgressToken(token)
	progress := m.progress.start(token)
	defer m.progress.done(token)
	res, err := cs.CallTool(ctx, params)
	if ctx.Err() != nil {
		return nil, ctx.Err() // stopping: left unfinished on purpose
	}
	m.cfg.Store.FinishMCPCall(context.WithoutCancel(ctx), inv.Key, m.cfg.Now())
	if err != nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "%s: %v", inv.Action, err)
	}
	secrets := m.secretValues(ctx, s.Name)
	out := Summarise(res, secrets)
	if p := progress.summary(); p != "" {
		// On the trail too (the note is the action.done's summary): how
		// far a long call got is what the person looks for.
		out.Progress = redact.String(p, secrets...)
		out.Note = strings.TrimSpace(out.Note + " (progress: " + out.Progress + ")")
	}
	if res.IsError {
		// The tool refused: another attempt would be refused the same.
		return nil, scouts.Errorf(scouts.EInvalid, "%s answered an error: %s", inv.Action, out.Note)
	}
	b, _ := json.Marshal(out)
	return b, nil
}

// secretValues are the values of a server's secrets, to be struck from
// what is recorded of its answers.
func (m *Manager) secretValues(ctx context.Context, name string) []string {
	s, err := m.server(ctx, name)
	if err != nil || m.cfg.Secret == nil {
		return nil
	}
	var out []string
	names := []string{s.Bearer}
	for _, n := range s.Env {
		names = append(names, n)
	}
	for _, n := range s.Headers {
		names = append(names, n)
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if v, err := m.cfg.Secret(ctx, n); err == nil && len(v) >= 4 {
			out = append(out, string(v))
		}
	}
	return out
}

// Result is what the outbox records of a call: a note for the trail and
// the answer, structurally truncated and redacted (the outbox cuts and
// redacts every result again as it stores it; here the server's own
// secret values are struck too, which only this package knows).
type Result struct {
	Note       string `json:"note"`
	Content    any    `json:"content,omitempty"`
	Structured any    `json:"structured,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	// Progress is the last progress the server reported during the call
	// ("5 of 5 (5 reports)"), empty when it reported none.
	Progress string `json:"progress,omitempty"`
}

// maxPart bounds each of a Result's content and structured content, so
// that both fit in what the outbox stores of a result
// (engine.MaxResultBytes) beside the note.
const maxPart = 3 << 10

// Summarise makes a call's Result: credentials and the server's own
// secrets struck, content and structured content cut structurally to
// maxPart each (redact.Value).
func Summarise(res *mcp.CallToolResult, secrets []string) Result {
	var content any
	if b, err := json.Marshal(res.Content); err == nil {
		json.Unmarshal(b, &content)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	var r Result
	var cut, cutSC bool
	r.Content, cut = redact.Value(content, maxPart, secrets...)
	if res.StructuredContent != nil {
		var sc any
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			json.Unmarshal(b, &sc)
		}
		r.Structured, cutSC = redact.Value(sc, maxPart, secrets...)
	}
	r.Note = clip(strings.Join(strings.Fields(redact.String(strings.Join(texts, " "), secrets...)), " "), 200)
	r.Truncated = cut || cutSC
	return r
}
