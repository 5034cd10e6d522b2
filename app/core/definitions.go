package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// DefinitionOf is a stored scout as a document.
func (c *Core) DefinitionOf(ctx context.Context, s scouts.Scout) (definition.Document, error) {
	d := definition.Document{Version: definition.FormatVersion, ID: s.ID, Kind: string(s.Kind), Name: s.Name,
		Enabled: s.Enabled, Review: s.Review}
	var cfg map[string]json.RawMessage
	if len(s.Config) > 0 {
		if err := json.Unmarshal(s.Config, &cfg); err != nil {
			return d, fmt.Errorf("core: definition of %s: %w", s.ID, err)
		}
	}
	for _, k := range c.kinds[s.Kind].internalKeys {
		delete(cfg, k)
	}
	if len(cfg) > 0 {
		d.Source, _ = json.Marshal(cfg)
	}
	if slices.Contains(rules.Kinds(), string(s.Kind)) {
		rows, err := c.DB.ListRules(ctx, s.ID)
		if err != nil {
			return d, err
		}
		for _, r := range rows {
			b, err := definedRule(r.Doc, r.Enabled)
			if err != nil {
				return d, fmt.Errorf("core: rule %s of %s: %w", r.ID, s.ID, err)
			}
			d.Rules = append(d.Rules, b)
		}
	}
	st, err := c.DB.LearnState(ctx, s.ID)
	if err != nil {
		return d, err
	}
	l := definition.Learning(st.Settings)
	d.Learning = &l
	if s.Schedule != (scouts.Schedule{}) {
		d.Schedule = &definition.Schedule{Cron: s.Schedule.Cron, TimeZone: s.Schedule.TimeZone,
			Overlap: string(s.Schedule.Overlap), CatchUp: string(s.Schedule.CatchUp)}
	}
	if s.Budget != (scouts.Budget{}) {
		d.Budget = &definition.Budget{RunTokens: s.Budget.RunTokens, DayTokens: s.Budget.DayTokens}
	}
	return d, nil
}

// definedRule is a rule as a definition holds it: its stored document
// with its enabled flag.
func definedRule(stored json.RawMessage, enabled bool) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(stored, &m); err != nil {
		return nil, err
	}
	m["enabled"] = json.RawMessage(fmt.Sprint(enabled))
	return json.Marshal(m)
}

// SnapshotDefinition records a scout's current definition as a new
// version if it changed since the last one; it returns the current
// version.
func (c *Core) SnapshotDefinition(ctx context.Context, scoutID, actor, note string) (int, error) {
	s, err := c.DB.GetScout(ctx, scoutID)
	if err != nil {
		return 0, err
	}
	d, err := c.DefinitionOf(ctx, s)
	if err != nil {
		return 0, err
	}
	doc, err := definition.Marshal(d)
	if err != nil {
		return 0, err
	}
	if note == "" {
		note = c.changeNote(ctx, s.ID, doc)
	}
	v, added, err := c.DB.AddScoutVersion(ctx, localdb.ScoutVersion{ScoutID: s.ID, Document: doc, CreatedAt: c.now(), Actor: actor, Note: note})
	if err != nil {
		return 0, err
	}
	if added {
		c.Bus.Publish(scouts.Event{Type: EventDefinitionVersion, Data: map[string]any{"scout_id": s.ID, "version": v}})
	}
	return v, nil
}

type actorKey struct{}

// WithActor says who makes the changes done under ctx ("window", "cli",
// "api"…): the definition versions they record name it.
func WithActor(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, actorKey{}, who)
}

type writeFileKey struct{}

// WithWriteFile asks that the changes done under ctx to a scout a
// definitions file manages be written to its file too (the API's
// ?write_file=true). Without it they are refused: the file decides the
// scout's definition, and its next edit would silently undo them.
func WithWriteFile(ctx context.Context) context.Context {
	return context.WithValue(ctx, writeFileKey{}, true)
}

func writesFile(ctx context.Context) bool {
	w, _ := ctx.Value(writeFileKey{}).(bool)
	return w
}

// actorOf is who makes the changes under ctx, "api" when nobody said.
func actorOf(ctx context.Context) string {
	if a, _ := ctx.Value(actorKey{}).(string); a != "" {
		return a
	}
	return "api"
}

// EventDefinitionVersion is published when a scout's definition gets a
// new version.
const EventDefinitionVersion = "scout.version"

// ExportOptions say what an export holds besides the definitions.
type ExportOptions struct {
	// History adds each scout's past versions (definition.PastVersion),
	// oldest first.
	History bool
}

// ExportDefinitions returns the definitions of the scouts named (every
// scout when none is), current versions recorded first.
func (c *Core) ExportDefinitions(ctx context.Context, ids []string, o ExportOptions) ([]definition.Document, error) {
	var list []scouts.Scout
	if len(ids) == 0 {
		all, err := c.DB.ListScouts(ctx)
		if err != nil {
			return nil, err
		}
		list = all
	}
	for _, id := range ids {
		s, err := c.DB.GetScout(ctx, id)
		if err != nil {
			return nil, err
		}
		list = append(list, s)
	}
	// A change being saved is its author's, not the export's.
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	out := make([]definition.Document, 0, len(list))
	for _, s := range list {
		if _, err := c.SnapshotDefinition(ctx, s.ID, "export", ""); err != nil {
			return nil, err
		}
		d, err := c.DefinitionOf(ctx, s)
		if err != nil {
			return nil, err
		}
		if o.History {
			if d.History, err = c.pastVersions(ctx, s.ID); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// ScoutHistory returns a scout's versions, newest first.
func (c *Core) ScoutHistory(ctx context.Context, scoutID string) ([]localdb.ScoutVersion, error) {
	// A change being saved records its own version, with its author,
	// before this one looks for a change made outside a definition.
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	if _, err := c.SnapshotDefinition(ctx, scoutID, "agent", "changed outside a definition"); err != nil {
		return nil, err
	}
	return c.DB.ListScoutVersions(ctx, scoutID)
}

// DiffScoutVersions says what changed from version a to version b.
func (c *Core) DiffScoutVersions(ctx context.Context, scoutID string, a, b int) ([]definition.Change, error) {
	va, err := c.DB.GetScoutVersion(ctx, scoutID, a)
	if err != nil {
		return nil, err
	}
	vb, err := c.DB.GetScoutVersion(ctx, scoutID, b)
	if err != nil {
		return nil, err
	}
	return definition.Diff(va.Document, vb.Document)
}

// RollbackScout makes an earlier version the scout's definition again, as
// a new version (history is never rewritten). A scout a definitions file
// manages is refused: its file decides its definition, and the next edit
// of the file would silently undo the rollback.
func (c *Core) RollbackScout(ctx context.Context, scoutID string, version int, actor string) (DefinitionChange, error) {
	v, err := c.DB.GetScoutVersion(ctx, scoutID, version)
	if err != nil {
		return DefinitionChange{}, err
	}
	by, err := c.managedBy(ctx, scoutID)
	if err != nil {
		return DefinitionChange{}, err
	}
	if by != "" {
		return DefinitionChange{}, scouts.Errorf(scouts.EConflict, "managed by %s — roll back by putting version %d back in the file (scouts history shows it)",
			strings.TrimPrefix(by, "file:"), version)
	}
	d, err := definition.Parse(fmt.Sprintf("version %d", version), v.Document)
	if err != nil {
		return DefinitionChange{}, err
	}
	d.ID = scoutID
	changes, err := c.ImportDefinitions(ctx, []definition.Document{d}, ImportOptions{Apply: true, Actor: actor,
		Note: fmt.Sprintf("rollback to version %d", version), KeepManager: true})
	if err != nil {
		return DefinitionChange{}, err
	}
	return changes[0], nil
}

// ImportOptions say how definitions are imported.
type ImportOptions struct {
	// Apply makes the changes; without it the answer only says what they
	// would be.
	Apply bool
	// Actor and Note are recorded with each new version; CreateNote, when
	// set, instead of Note with the version of a scout the import creates.
	Actor, Note, CreateNote string
	// ManagedBy marks the scouts as managed by a file ("file:NAME").
	ManagedBy string
	// KeepManager leaves who manages a scout as it is (a rollback).
	KeepManager bool
	// WithoutHistory imports the definitions alone, leaving out the
	// history an export may carry (a scout whose own history differs
	// then gets the definition as a new version).
	WithoutHistory bool
}

// DefinitionChange is what importing one definition does or would do.
type DefinitionChange struct {
	// Action is create, update or unchanged.
	Action  string              `json:"action"`
	ScoutID string              `json:"scout_id,omitempty"`
	Name    string              `json:"name"`
	Kind    string              `json:"kind"`
	Changes []definition.Change `json:"changes,omitempty"`
	// Version is the scout's definition version after the import (0 in a
	// dry run).
	Version int `json:"version,omitempty"`
	// HookToken is a new webhook scout's token, shown once.
	HookToken string `json:"hook_token,omitempty"`
	// PastVersions are the version numbers the import adds (or would
	// add) from the definition's history, oldest first.
	PastVersions []int `json:"past_versions,omitempty"`
}

// ImportDefinitions matches each document to a scout (by id, else by
// name and kind) and creates or updates it. All documents are checked
// before any is applied; the first that cannot be applied stops the rest.
func (c *Core) ImportDefinitions(ctx context.Context, docs []definition.Document, o ImportOptions) ([]DefinitionChange, error) {
	if o.Apply {
		// What is compared is what is changed: nothing comes between.
		var done func()
		ctx, done = c.changeDefinitions(ctx)
		defer done()
	}
	existing, err := c.DB.ListScouts(ctx)
	if err != nil {
		return nil, err
	}
	type plan struct {
		doc  definition.Document
		cur  *scouts.Scout
		past []definition.PastVersion
	}
	plans := make([]plan, 0, len(docs))
	seen := map[string]bool{}
	for i, d := range docs {
		if from := c.kinds[scouts.Kind(d.Kind)].fromDefinition; from != nil {
			d.Source = from(d.Source)
		}
		p := plan{doc: d}
		for j := range existing {
			e := &existing[j]
			if (d.ID != "" && e.ID == d.ID) || (d.ID == "" && p.cur == nil && e.Name == d.Name && string(e.Kind) == d.Kind) {
				p.cur = e
			}
		}
		if p.cur != nil && string(p.cur.Kind) != d.Kind {
			return nil, scouts.Errorf(scouts.EInvalid, "definition %d (%s): scout %s is a %s scout, not %s", i+1, d.Name, p.cur.ID, p.cur.Kind, d.Kind)
		}
		// Each rule as the scout will hold it (its defaults spelt out), so
		// that a definition read again compares equal to the scout.
		ruleIDs := make(map[string]bool, len(d.Rules))
		if len(d.Rules) > 0 {
			p.doc.Rules = make([]json.RawMessage, 0, len(d.Rules))
		}
		for _, r := range d.Rules {
			comp, err := rules.Compile(d.Kind, r, c.ruleOptions(scouts.Kind(d.Kind)))
			if err != nil {
				return nil, scouts.Errorf(scouts.EInvalid, "definition %d (%s): rule: %v", i+1, d.Name, err)
			}
			if ruleIDs[comp.Rule.ID] {
				return nil, scouts.Errorf(scouts.EInvalid, "definition %d (%s): two rules have the id %q; a rule's id is unique within its scout", i+1, d.Name, comp.Rule.ID)
			}
			ruleIDs[comp.Rule.ID] = true
			stored, on := storedDoc(comp.Rule)
			defined, err := definedRule(stored, on)
			if err != nil {
				return nil, err
			}
			p.doc.Rules = append(p.doc.Rules, defined)
		}
		if d.Learning != nil {
			if err := scouts.LearnSettings(*d.Learning).Validate(); err != nil {
				return nil, err
			}
		}
		key := d.ID
		if p.cur != nil {
			key = p.cur.ID
		}
		if key != "" && seen[key] {
			return nil, scouts.Errorf(scouts.EInvalid, "definition %d (%s): scout %s is defined twice", i+1, d.Name, key)
		}
		seen[key] = true
		if o.WithoutHistory {
			p.doc.History = nil
		}
		if err := c.checkPastActions(i, p.doc); err != nil {
			return nil, err
		}
		if p.past, err = c.historyToAdd(ctx, i, p.doc, p.cur, o.Actor); err != nil {
			return nil, err
		}
		p.doc.History = nil
		plans = append(plans, p)
	}
	out := make([]DefinitionChange, 0, len(plans))
	for _, p := range plans {
		ch := DefinitionChange{Name: p.doc.Name, Kind: p.doc.Kind, ScoutID: p.doc.ID}
		for _, v := range p.past {
			ch.PastVersions = append(ch.PastVersions, v.Version)
		}
		if p.cur == nil {
			ch.Action = "create"
			if o.Apply {
				if err := c.createFromDefinition(ctx, p.doc, p.past, o, &ch); err != nil {
					return out, fmt.Errorf("%s: %w", p.doc.Name, err)
				}
			}
			out = append(out, ch)
			continue
		}
		ch.ScoutID = p.cur.ID
		cur, err := c.DefinitionOf(ctx, *p.cur)
		if err != nil {
			return out, err
		}
		p.doc.ID = p.cur.ID
		if p.doc.Learning == nil {
			p.doc.Learning = cur.Learning
		}
		a, _ := definition.Marshal(cur)
		b, _ := definition.Marshal(p.doc)
		if ch.Changes, err = definition.Diff(a, b); err != nil {
			return out, err
		}
		ch.Action = "update"
		if len(ch.Changes) == 0 && len(p.past) == 0 {
			ch.Action = "unchanged"
		}
		if o.Apply {
			if err := c.applyDefinition(ctx, *p.cur, cur, p.doc, p.past, o, &ch); err != nil {
				return out, fmt.Errorf("%s: %w", p.doc.Name, err)
			}
		}
		out = append(out, ch)
	}
	return out, nil
}

func (c *Core) createFromDefinition(ctx context.Context, d definition.Document, past []definition.PastVersion, o ImportOptions, ch *DefinitionChange) error {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	in := NewScout{ID: d.ID, Kind: scouts.Kind(d.Kind), Name: d.Name, Review: d.Review, Enabled: d.Enabled, Config: d.Source,
		Schedule: scheduleOf(d), Budget: budgetOf(d), fromDefinition: true}
	if c.kinds[in.Kind].hookToken {
		in.Config = nil // the relay's
	}
	created, err := c.CreateScout(ctx, in)
	if err != nil {
		return err
	}
	ch.ScoutID, ch.HookToken = created.Scout.ID, created.HookToken
	return c.finishDefinition(ctx, created.Scout, definition.Document{}, d, past, o, ch)
}

func (c *Core) applyDefinition(ctx context.Context, s scouts.Scout, cur, d definition.Document, past []definition.PastVersion, o ImportOptions, ch *DefinitionChange) error {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	p := ScoutPatch{Name: &d.Name, Enabled: &d.Enabled, Review: &d.Review, fromDefinition: true}
	sched, budget := scheduleOf(d), budgetOf(d)
	p.Schedule, p.Budget = &sched, &budget
	if !c.kinds[s.Kind].hookToken && !bytes.Equal(compactJSON(cur.Source), compactJSON(d.Source)) {
		cfg, err := c.mergeConfig(s, d.Source)
		if err != nil {
			return err
		}
		p.Config = cfg
	}
	if _, err := c.UpdateScout(ctx, s.ID, p); err != nil {
		return err
	}
	return c.finishDefinition(ctx, s, cur, d, past, o, ch)
}

// finishDefinition writes what a scout row does not hold (rules, learner
// thresholds, who manages it), the past versions an export's history
// brings, and records the version.
func (c *Core) finishDefinition(ctx context.Context, s scouts.Scout, cur, d definition.Document, past []definition.PastVersion, o ImportOptions, ch *DefinitionChange) error {
	if !slices.EqualFunc(cur.Rules, d.Rules, func(a, b json.RawMessage) bool { return bytes.Equal(compactJSON(a), compactJSON(b)) }) {
		if err := c.replaceRules(ctx, s.ID, d.Rules); err != nil {
			return err
		}
	}
	if d.Learning != nil && (cur.Learning == nil || *cur.Learning != *d.Learning) {
		if err := c.DB.SetLearnSettings(ctx, s.ID, scouts.LearnSettings(*d.Learning)); err != nil {
			return err
		}
	}
	if !o.KeepManager {
		if err := c.DB.SetScoutManagedBy(ctx, s.ID, o.ManagedBy); err != nil {
			return err
		}
	}
	if err := c.addPastVersions(ctx, s.ID, past); err != nil {
		return err
	}
	note := o.Note
	if ch.Action == "create" && o.CreateNote != "" {
		note = o.CreateNote
	}
	v, err := c.SnapshotDefinition(ctx, s.ID, o.Actor, note)
	ch.Version = v
	return err
}

// replaceRules makes a scout's rules exactly docs, in order, through the
// rules' own checks: all are checked first, then written in one
// transaction, so a failure (or a crash) half way leaves the rules as they
// were instead of some of them deleted.
func (c *Core) replaceRules(ctx context.Context, scoutID string, docs []json.RawMessage) error {
	s, err := c.ruleScout(ctx, scoutID)
	if err != nil {
		return err
	}
	now := c.now()
	rows := make([]localdb.RuleRow, 0, len(docs))
	for _, d := range docs {
		comp, err := c.compileRule(s, d)
		if err != nil {
			return err
		}
		stored, on := storedDoc(comp.Rule)
		rows = append(rows, localdb.RuleRow{ScoutID: s.ID, ID: comp.Rule.ID, Enabled: on, Doc: stored, CreatedAt: now, UpdatedAt: now})
	}
	c.rules.mu.Lock()
	if _, err := c.rulesOfLocked(ctx, s); err != nil { // old Gmail rules first, as addRule does
		c.rules.mu.Unlock()
		return err
	}
	err = c.DB.ReplaceRules(ctx, s.ID, rows, rules.MaxRules)
	delete(c.rules.sets, s.ID)
	c.rules.mu.Unlock()
	if err != nil {
		return err
	}
	_, err = c.afterRuleChange(ctx, s, "", "")
	return err
}

// mergeConfig is a definition's source over the scout's stored
// configuration's internal fields.
func (c *Core) mergeConfig(s scouts.Scout, source json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(source) > 0 {
		if err := json.Unmarshal(source, &m); err != nil {
			return nil, scouts.Errorf(scouts.EInvalid, "source: %v", err)
		}
	}
	var old map[string]json.RawMessage
	if len(s.Config) > 0 && json.Unmarshal(s.Config, &old) == nil {
		for _, k := range c.kinds[s.Kind].internalKeys {
			if v, ok := old[k]; ok {
				m[k] = v
			}
		}
	}
	return json.Marshal(m)
}

func compactJSON(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, _ := json.Marshal(v)
	return out
}

func scheduleOf(d definition.Document) scouts.Schedule {
	if d.Schedule == nil {
		return scouts.Schedule{}
	}
	return scouts.Schedule{Cron: d.Schedule.Cron, TimeZone: d.Schedule.TimeZone,
		Overlap: scouts.Overlap(d.Schedule.Overlap), CatchUp: scouts.CatchUp(d.Schedule.CatchUp)}
}

func budgetOf(d definition.Document) scouts.Budget {
	if d.Budget == nil {
		return scouts.Budget{}
	}
	return scouts.Budget{RunTokens: d.Budget.RunTokens, DayTokens: d.Budget.DayTokens}
}

// errManaged is the answer to an edit of a scout a file manages.
func errManaged(by string) error {
	file := strings.TrimPrefix(by, "file:")
	return scouts.Errorf(scouts.EConflict, "managed by %s — edit the file (or ask to write it: ?write_file=true)", file)
}

// restartHold collects the scouts a definition's application would
// restart on the way (its settings, then its rules), so that they restart
// once, after the new version is recorded: the first run of a scout an
// import, a definitions file or a rollback changed then records the new
// version, not the one before.
type restartHold struct{ ids map[string]bool }

type restartHoldKey struct{}

func holdRestarts(ctx context.Context) (context.Context, *restartHold) {
	if h, ok := ctx.Value(restartHoldKey{}).(*restartHold); ok {
		return ctx, h
	}
	h := &restartHold{ids: map[string]bool{}}
	return context.WithValue(ctx, restartHoldKey{}, h), h
}

// syncScout (re)starts s's runner now, or once the definition being
// applied under ctx is recorded.
func (c *Core) syncScout(ctx context.Context, s scouts.Scout) {
	if h, ok := ctx.Value(restartHoldKey{}).(*restartHold); ok {
		h.ids[s.ID] = true
		return
	}
	c.Engine.Sync(s)
}

// releaseRestarts restarts what h held, each as the database has it now
// (a relay's answer may have changed the scout meanwhile).
func (c *Core) releaseRestarts(ctx context.Context, h *restartHold) {
	for id := range h.ids {
		s, err := c.DB.GetScout(context.WithoutCancel(ctx), id)
		if err != nil {
			c.log.Warn("restart scout after its definition changed", "scout", id, "err", err)
			continue
		}
		c.Engine.Sync(s)
	}
	clear(h.ids)
}
