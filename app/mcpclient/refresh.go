package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// Refresh lists a server's tools now (starting it if needed) and
// classifies them against the pins: what changed is blocked and audited
// once, what is unchanged is left as it was.
func (m *Manager) Refresh(ctx context.Context, name string) (Report, error) {
	c, err := m.conn(ctx, name)
	if err != nil {
		return Report{}, err
	}
	cs, err := c.session(ctx)
	if err != nil {
		m.recordError(ctx, name, err)
		return Report{}, err
	}
	defs, err := ListDefinitions(ctx, cs)
	if err != nil {
		m.recordError(ctx, name, err)
		return Report{}, fmt.Errorf("mcp server %s: %w", name, err)
	}
	c.connected()
	return m.record(ctx, name, defs)
}

func (m *Manager) recordError(ctx context.Context, name string, err error) {
	msg := err.Error()
	m.cfg.Store.SaveMCPListing(context.WithoutCancel(ctx), localdb.MCPListing{Server: name, LastError: &msg})
	m.cfg.Emit(scouts.Event{Type: EventChanged, Data: map[string]string{"server": name}})
}

// record classifies a listing against the stored pins and writes what
// changed. Serialised per manager: two listings of one server (a connect
// and a list_changed) must not interleave their reads and writes.
func (m *Manager) record(ctx context.Context, name string, listed []Definition) (Report, error) {
	m.recordMu.Lock()
	defer m.recordMu.Unlock()
	rows, err := m.cfg.Store.MCPTools(ctx, name)
	if err != nil {
		return Report{}, err
	}
	pinned := map[string]Definition{}
	byName := map[string]localdb.MCPTool{}
	for _, r := range rows {
		byName[r.Name] = r
		if d, ok := decodeDef(r.Pinned); ok {
			pinned[r.Name] = d
		}
	}
	rep := Classify(pinned, listed)
	now := m.cfg.Now()
	l := localdb.MCPListing{Server: name, SeenSet: &rep.SetHash, SeenAt: now, LastError: new("")}
	var audit []scouts.AuditEvent
	listedBy := map[string]Definition{}
	for _, d := range listed {
		listedBy[d.Name] = d
	}
	for _, tr := range rep.Tools {
		row := byName[tr.Name]
		row.Server, row.Name = name, tr.Name
		prevSeen := row.SeenHash
		switch tr.Status {
		case StatusUnchanged:
			if prevSeen == tr.NewHash {
				continue // nothing to write: the common case, every reconnect
			}
			row.Seen, row.SeenHash = mustJSON(listedBy[tr.Name]), tr.NewHash
		case StatusTightened:
			// Believed at once: the pin follows the more careful hints.
			row.Seen, row.SeenHash = mustJSON(listedBy[tr.Name]), tr.NewHash
			row.Pinned, row.PinnedHash = row.Seen, tr.NewHash
			audit = append(audit, m.audit(AuditToolTightened, name, tr.Name,
				fmt.Sprintf("Tool %s of MCP server %s now claims less safety in its hints; the pin follows (not drift)", tr.Name, name),
				"old_hash", tr.OldHash, "new_hash", tr.NewHash))
		case StatusChanged, StatusNew:
			if prevSeen == tr.NewHash {
				continue // already blocked and audited for this very definition
			}
			row.Seen, row.SeenHash = mustJSON(listedBy[tr.Name]), tr.NewHash
			what := "is new (not approved yet)"
			if tr.Status == StatusChanged {
				what = "changed since it was approved: " + diffWords(tr.Diff)
			}
			audit = append(audit, m.audit(AuditToolDrift, name, tr.Name,
				fmt.Sprintf("Tool %s of MCP server %s %s; its action %s is blocked until approved again", tr.Name, name, what, ActionName(name, tr.Name)),
				"status", string(tr.Status), "old_hash", tr.OldHash, "new_hash", tr.NewHash))
		case StatusRemoved:
			if prevSeen == "" {
				continue
			}
			row.Seen, row.SeenHash = "", ""
			audit = append(audit, m.audit(AuditToolRemoved, name, tr.Name,
				fmt.Sprintf("Tool %s of MCP server %s is no longer listed; its action cannot run", tr.Name, name), "old_hash", tr.OldHash))
		}
		l.Tools = append(l.Tools, row)
	}
	// A tool never approved that the server stopped listing leaves no row.
	for n, r := range byName {
		if r.PinnedHash == "" {
			if _, ok := listedBy[n]; !ok {
				l.Delete = append(l.Delete, n)
			}
		}
	}
	if err := m.cfg.Store.SaveMCPListing(ctx, l, audit...); err != nil {
		return Report{}, err
	}
	if len(l.Tools) > 0 || len(l.Delete) > 0 {
		if err := m.rebuild(ctx); err != nil {
			return Report{}, err
		}
		m.cfg.Emit(scouts.Event{Type: EventChanged, Data: map[string]string{"server": name}})
	}
	return rep, nil
}

// diffWords says in a line which lines of a definition changed.
func diffWords(rows []DiffRow) string {
	var parts []string
	for _, r := range Changes(rows) {
		old, nw := strings.TrimSpace(r.Old), strings.TrimSpace(r.New)
		parts = append(parts, fmt.Sprintf("%s → %s", clip(old, 80), clip(nw, 80)))
		if len(parts) == 3 {
			break
		}
	}
	return strings.Join(parts, "; ")
}

// Approve pins a server's tools as they are listed now: one tool, or
// (tool "") every tool waiting for approval. Each pin is on the trail
// with its hash.
func (m *Manager) Approve(ctx context.Context, server, tool, actor string) ([]string, error) {
	m.recordMu.Lock()
	defer m.recordMu.Unlock()
	if _, err := m.server(ctx, server); err != nil {
		return nil, err
	}
	rows, err := m.cfg.Store.MCPTools(ctx, server)
	if err != nil {
		return nil, err
	}
	now := m.cfg.Now()
	l := localdb.MCPListing{Server: server}
	var audit []scouts.AuditEvent
	var done []string
	found := false
	pins := map[string]string{}
	for _, r := range rows {
		if tool != "" && r.Name != tool {
			if r.PinnedHash != "" {
				pins[r.Name] = r.PinnedHash
			}
			continue
		}
		found = true
		if r.SeenHash == r.PinnedHash {
			if r.PinnedHash != "" {
				pins[r.Name] = r.PinnedHash
			}
			continue // nothing to review
		}
		if r.SeenHash == "" { // removed: approving forgets the pin
			l.Delete = append(l.Delete, r.Name)
			audit = append(audit, m.audit(AuditToolPinned, server, r.Name,
				fmt.Sprintf("Tool %s of MCP server %s, no longer listed, forgotten by %s", r.Name, server, actorOr(actor)), "actor", actorOr(actor)))
			done = append(done, r.Name)
			continue
		}
		word := "approved and pinned"
		if r.PinnedHash != "" {
			word = "re-approved after its change and pinned again"
		}
		audit = append(audit, m.audit(AuditToolPinned, server, r.Name,
			fmt.Sprintf("Tool %s of MCP server %s %s by %s (definition %s)", r.Name, server, word, actorOr(actor), r.SeenHash[:12]),
			"actor", actorOr(actor), "old_hash", r.PinnedHash, "new_hash", r.SeenHash))
		r.Pinned, r.PinnedHash, r.ApprovedAt, r.ApprovedBy = r.Seen, r.SeenHash, now, actorOr(actor)
		pins[r.Name] = r.PinnedHash
		l.Tools = append(l.Tools, r)
		done = append(done, r.Name)
	}
	if tool != "" && !found {
		return nil, scouts.Errorf(scouts.ENotFound, "MCP server %s has no tool %s", server, tool)
	}
	set := SetHash(pins)
	l.PinnedSet = &set
	if err := m.cfg.Store.SaveMCPListing(ctx, l, audit...); err != nil {
		return nil, err
	}
	if err := m.rebuild(ctx); err != nil {
		return nil, err
	}
	m.cfg.Emit(scouts.Event{Type: EventChanged, Data: map[string]string{"server": server}})
	return done, nil
}

// rebuild makes the catalogue entries again from the registry.
func (m *Manager) rebuild(ctx context.Context) error {
	servers, err := m.cfg.Store.MCPServers(ctx)
	if err != nil {
		return err
	}
	tools, err := m.cfg.Store.MCPTools(ctx, "")
	if err != nil {
		return err
	}
	trusted := map[string]bool{}
	for _, s := range servers {
		trusted[s.Name] = s.Trusted
	}
	var defs []actions.Def
	for _, t := range tools {
		if _, ok := trusted[t.Server]; !ok {
			continue
		}
		defs = append(defs, toolDef(t, trusted[t.Server]))
	}
	m.defs.Store(&defs)
	return nil
}

// toolDef is a tool's catalogue entry: its approved definition's schema
// and hints, or blocked with the reason.
func toolDef(t localdb.MCPTool, trusted bool) actions.Def {
	d := actions.Def{Name: ActionName(t.Server, t.Name), Where: actions.Outbox, Risk: actions.RiskWrite}
	def, pinned := decodeDef(t.Pinned)
	if !pinned {
		def, _ = decodeDef(t.Seen)
	}
	d.Schema = def.InputSchema
	if len(d.Schema) == 0 {
		d.Schema = json.RawMessage(`{"type": "object"}`)
	}
	d.Risk = Risk(def.Annotations, trusted)
	title := def.Title
	if title == "" {
		title = def.Annotations.Title
	}
	desc := fmt.Sprintf("Tool %s of the MCP server %s", t.Name, t.Server)
	if title != "" {
		desc += " (" + title + ")"
	}
	if def.Description != "" {
		desc += ": " + clip(def.Description, 500)
	}
	d.Description = desc
	switch {
	case t.PinnedHash == "":
		d.Blocked = "a new tool, not approved yet (scouts mcp approve " + t.Server + " " + t.Name + ")"
	case t.SeenHash == "":
		d.Blocked = "the server no longer lists this tool"
	case t.SeenHash != t.PinnedHash:
		d.Blocked = "its definition changed since it was approved: review the difference and approve it again (scouts mcp approve " + t.Server + " " + t.Name + ")"
	}
	return d
}

// Risk is a tool's risk hint from its annotations, believed only as a
// hint: read (so allowed by default) only when it says it only reads,
// does not say it reaches an open world, and the person trusts the
// server; danger when it says it is destructive; write otherwise (no
// annotations at all included).
func Risk(a Annotations, trusted bool) actions.Risk {
	readOnly := a.ReadOnly != nil && *a.ReadOnly
	openWorld := a.OpenWorld != nil && *a.OpenWorld
	switch {
	case readOnly && !openWorld && trusted:
		return actions.RiskRead
	case !readOnly && a.Destructive != nil && *a.Destructive:
		return actions.RiskDanger
	}
	return actions.RiskWrite
}

// Actions lists the tools as catalogue entries (engine.Config.ExtraActions).
func (m *Manager) Actions() []actions.Def { return *m.defs.Load() }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
