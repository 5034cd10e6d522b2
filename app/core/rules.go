package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/ruleset"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// EventRulesChanged is published when a scout's rules change; its data is
// {"scout_id": …}.
const EventRulesChanged = "scout.rules"

// RuleView is one of a scout's rules as listed.
type RuleView struct {
	Rule     rules.Rule
	Position int
	// Relay is set for a relay-triage Gmail scout's rules that the relay
	// applies itself, before the desktop sees the mail (see
	// docs/rules.md).
	Relay bool
	// Problem is set when a stored rule no longer compiles (an action the
	// catalogue dropped): the rule is skipped until it is fixed.
	Problem   string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ruleCache holds each scout's compiled rules between changes: the agent
// is the only writer of the rules table, so a change here is every change.
type ruleCache struct {
	mu   sync.Mutex // also serialises rule changes and migrations
	sets map[string]*compiledRules

	catalogueOnce sync.Once
	catalogue     *actions.Catalogue
}

type compiledRules struct {
	rows     []localdb.RuleRow
	set      rules.Set // enabled or not, in order; only those that compile
	problems map[string]string
}

// RulesSchema returns the rule grammar's JSON Schema; with a scout kind,
// the variant listing that kind's fields.
func (c *Core) RulesSchema(kind string) ([]byte, error) {
	if kind == "" {
		return rules.Schema(), nil
	}
	if !slices.Contains(rules.Kinds(), kind) {
		return nil, scouts.Errorf(scouts.EInvalid, "unknown scout kind %q (want %s)", kind, strings.Join(rules.Kinds(), ", "))
	}
	return rules.SchemaFor(kind)
}

// compileRule checks a rule document being saved (added, edited,
// imported, previewed) for a scout, with the action catalogue's and the
// executors' say on its actions (ruleOptions), and measures its costly
// regexes (rules.Options.Probe).
func (c *Core) compileRule(s scouts.Scout, doc []byte) (*rules.Compiled, error) {
	return c.compileRuleWith(s, doc, true)
}

// compileRuleWith checks a rule document; probe is false for a rule read
// back from storage, measured when it was saved.
func (c *Core) compileRuleWith(s scouts.Scout, doc []byte, probe bool) (*rules.Compiled, error) {
	o := c.ruleOptions(s.Kind)
	o.Probe = probe
	r, err := rules.Compile(string(s.Kind), doc, o)
	if err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "%v", err)
	}
	return r, nil
}

func (c *Core) actionCatalogue() *actions.Catalogue {
	c.rules.catalogueOnce.Do(func() { c.rules.catalogue = actions.MustNew() })
	return c.rules.catalogue
}

// rulesOf returns a scout's rules compiled (from the cache), after moving
// any old Gmail allow/deny rules its configuration still holds.
func (c *Core) rulesOf(ctx context.Context, s scouts.Scout) (*compiledRules, error) {
	c.rules.mu.Lock()
	defer c.rules.mu.Unlock()
	return c.rulesOfLocked(ctx, s)
}

func (c *Core) rulesOfLocked(ctx context.Context, s scouts.Scout) (*compiledRules, error) {
	if s.Kind == scouts.KindGmail && hasOldRules(s.Config) {
		// An old client sent the allow/deny lists with the configuration:
		// moved now, whatever the cache holds.
		if err := c.adoptGmailRules(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	if cr := c.rules.sets[s.ID]; cr != nil {
		return cr, nil
	}
	if s.Kind == scouts.KindGmail {
		if err := c.adoptGmailRules(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	rows, err := c.DB.ListRules(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	cr := &compiledRules{rows: rows, problems: map[string]string{}}
	for _, row := range rows {
		comp, err := c.compileRuleWith(s, withEnabled(row), false)
		if err != nil {
			// Saved valid, refused now (the catalogue changed): skipped,
			// and shown with its problem in the listing.
			c.log.Warn("rule skipped: it no longer compiles", "scout", s.ID, "rule", row.ID, "err", err)
			cr.problems[row.ID] = scouts.ErrorMessage(err)
			continue
		}
		cr.set = append(cr.set, comp)
	}
	if c.rules.sets == nil {
		c.rules.sets = map[string]*compiledRules{}
	}
	c.rules.sets[s.ID] = cr
	return cr, nil
}

// hasOldRules reports a Gmail configuration that carries the old
// allow/deny lists.
func hasOldRules(cfg json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(cfg, &m) == nil && m["rules"] != nil
}

// withEnabled returns a stored rule's document with its enabled flag.
func withEnabled(row localdb.RuleRow) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(row.Doc, &m) != nil {
		return row.Doc
	}
	m["enabled"] = json.RawMessage(fmt.Sprint(row.Enabled))
	b, _ := json.Marshal(m)
	return b
}

// engineRules is the engine's Rules hook: a scout's rules for one page of
// items.
func (c *Core) engineRules(ctx context.Context, s scouts.Scout) (scouts.RuleSet, error) {
	if !slices.Contains(rules.Kinds(), string(s.Kind)) {
		return nil, nil
	}
	cr, err := c.rulesOf(ctx, s)
	if err != nil || len(cr.set) == 0 {
		return nil, err
	}
	return &ruleset.Rules{Kind: s.Kind, Set: cr.set, Project: c.findProject, Loc: time.Local, Now: c.now}, nil
}

// findProject resolves a rule's project, an id or the name of an open
// project (case ignored), to its id; "" when there is none.
func (c *Core) findProject(ctx context.Context, idOrName string) (string, error) {
	if strings.HasPrefix(idOrName, "pj_") {
		p, err := c.DB.GetEntity(ctx, scouts.EntityProject, idOrName)
		if scouts.ErrorCode(err) == scouts.ENotFound {
			return "", nil
		}
		return p.ID, err
	}
	done := false
	list, err := c.DB.ListEntities(ctx, scouts.EntityProject, localdb.EntityFilter{Done: &done, Limit: 5000})
	if err != nil {
		return "", err
	}
	for _, p := range list {
		if strings.EqualFold(strings.TrimSpace(p.Title), strings.TrimSpace(idOrName)) {
			return p.ID, nil
		}
	}
	return "", nil
}

// triageRules is what a Gmail scout's triage pipeline (the relay's, or
// the desktop's own) applies before its heuristics: the scout's rules it
// can express, from the top; more reports enabled rules beyond them, which
// the desktop applies when the card arrives.
func (c *Core) triageRules(ctx context.Context, s scouts.Scout) (out []triage.Rule, more bool, err error) {
	cr, err := c.rulesOf(ctx, s)
	if err != nil {
		return nil, false, err
	}
	var docs []rules.Rule
	for _, r := range cr.set {
		docs = append(docs, r.Rule)
	}
	out, desktop := ruleset.ForTriage(docs)
	return out, len(desktop) > 0, nil
}

// ListRules returns a scout's rules in the order they are tried.
func (c *Core) ListRules(ctx context.Context, scoutID string) ([]RuleView, error) {
	s, err := c.DB.GetScout(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(rules.Kinds(), string(s.Kind)) {
		return nil, scouts.Errorf(scouts.EInvalid, "%s scouts have no rules", s.Kind)
	}
	cr, err := c.rulesOf(ctx, s)
	if err != nil {
		return nil, err
	}
	relay := map[string]bool{}
	if gmaildesk.RelayTriaged(s) {
		var docs []rules.Rule
		for _, r := range cr.set {
			docs = append(docs, r.Rule)
		}
		ts, _ := ruleset.ForTriage(docs)
		for _, t := range ts {
			relay[t.ID] = true
		}
	}
	out := make([]RuleView, 0, len(cr.rows))
	for _, row := range cr.rows {
		v := RuleView{Position: row.Position, Relay: relay[row.ID], Problem: cr.problems[row.ID], CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}
		if err := json.Unmarshal(withEnabled(row), &v.Rule); err != nil {
			return nil, fmt.Errorf("core: rule %s of %s: %w", row.ID, scoutID, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ruleScout returns a scout that can have rules.
func (c *Core) ruleScout(ctx context.Context, scoutID string) (scouts.Scout, error) {
	s, err := c.DB.GetScout(ctx, scoutID)
	if err != nil {
		return s, err
	}
	if !slices.Contains(rules.Kinds(), string(s.Kind)) {
		return s, scouts.Errorf(scouts.EInvalid, "%s scouts have no rules", s.Kind)
	}
	return s, nil
}

// storedDoc is a compiled rule's document as stored: without its enabled
// flag, which is the row's.
func storedDoc(r rules.Rule) (json.RawMessage, bool) {
	on := r.IsEnabled()
	r.Enabled = nil
	b, _ := json.Marshal(r)
	return b, on
}

// AddRule checks a rule document and adds it to a scout's rules at
// position (-1: last). Like every rule change below, it is refused for a
// scout a definitions file manages (its rules are the file's) unless ctx
// asks to write the file (WithWriteFile), which then holds the change.
func (c *Core) AddRule(ctx context.Context, scoutID string, doc []byte, position int) (RuleView, error) {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	if err := c.checkEditable(ctx, scoutID); err != nil {
		return RuleView{}, err
	}
	return c.addRule(ctx, scoutID, doc, position, true)
}

// addRule adds a rule; record says whether the change records a version
// of the scout's definition (not while a definition is being applied: it
// records one version for the whole document).
func (c *Core) addRule(ctx context.Context, scoutID string, doc []byte, position int, record bool) (RuleView, error) {
	s, err := c.ruleScout(ctx, scoutID)
	if err != nil {
		return RuleView{}, err
	}
	comp, err := c.compileRule(s, doc)
	if err != nil {
		return RuleView{}, err
	}
	stored, on := storedDoc(comp.Rule)
	now := c.now()
	c.rules.mu.Lock()
	if _, err := c.rulesOfLocked(ctx, s); err != nil { // old Gmail rules first
		c.rules.mu.Unlock()
		return RuleView{}, err
	}
	_, err = c.DB.AddRule(ctx, localdb.RuleRow{ScoutID: s.ID, ID: comp.Rule.ID, Position: position, Enabled: on, Doc: stored,
		CreatedAt: now, UpdatedAt: now}, rules.MaxRules)
	delete(c.rules.sets, s.ID)
	c.rules.mu.Unlock()
	if err != nil {
		return RuleView{}, err
	}
	return c.afterRuleChange(ctx, s, comp.Rule.ID, recorded(record, fmt.Sprintf("rule %q added", comp.Rule.ID)))
}

// UpdateRule replaces a rule's document; its id cannot change.
func (c *Core) UpdateRule(ctx context.Context, scoutID, ruleID string, doc []byte) (RuleView, error) {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	if err := c.checkEditable(ctx, scoutID); err != nil {
		return RuleView{}, err
	}
	s, err := c.ruleScout(ctx, scoutID)
	if err != nil {
		return RuleView{}, err
	}
	doc, err = withID(doc, ruleID)
	if err != nil {
		return RuleView{}, err
	}
	comp, err := c.compileRule(s, doc)
	if err != nil {
		return RuleView{}, err
	}
	stored, on := storedDoc(comp.Rule)
	return c.updateRow(ctx, s, localdb.RuleRow{ScoutID: s.ID, ID: ruleID, Enabled: on, Doc: stored, UpdatedAt: c.now()},
		fmt.Sprintf("rule %q edited", ruleID))
}

// withID fills a document's id from the URL, or checks it matches.
func withID(doc []byte, id string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "rule %q: not a JSON object: %v", id, err)
	}
	if raw, ok := m["id"]; ok {
		var got string
		if json.Unmarshal(raw, &got) != nil || got != id {
			return nil, scouts.Errorf(scouts.EInvalid, "rule %q: the document's id is %s; a rule's id cannot change (delete it and add a new one)", id, raw)
		}
		return doc, nil
	}
	m["id"], _ = json.Marshal(id)
	return json.Marshal(m)
}

// SetRuleEnabled switches a rule on or off.
func (c *Core) SetRuleEnabled(ctx context.Context, scoutID, ruleID string, on bool) (RuleView, error) {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	if err := c.checkEditable(ctx, scoutID); err != nil {
		return RuleView{}, err
	}
	s, err := c.ruleScout(ctx, scoutID)
	if err != nil {
		return RuleView{}, err
	}
	cr, err := c.rulesOf(ctx, s)
	if err != nil {
		return RuleView{}, err
	}
	i := slices.IndexFunc(cr.rows, func(r localdb.RuleRow) bool { return r.ID == ruleID })
	if i < 0 {
		return RuleView{}, scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", scoutID, ruleID)
	}
	row := cr.rows[i]
	row.Enabled, row.UpdatedAt = on, c.now()
	return c.updateRow(ctx, s, row, fmt.Sprintf("rule %q switched %s", ruleID, map[bool]string{true: "on", false: "off"}[on]))
}

func (c *Core) updateRow(ctx context.Context, s scouts.Scout, row localdb.RuleRow, note string) (RuleView, error) {
	c.rules.mu.Lock()
	_, err := c.DB.UpdateRule(ctx, row)
	delete(c.rules.sets, s.ID)
	c.rules.mu.Unlock()
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return RuleView{}, scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", s.ID, row.ID)
	}
	if err != nil {
		return RuleView{}, err
	}
	return c.afterRuleChange(ctx, s, row.ID, note)
}

// DeleteRule deletes a rule.
func (c *Core) DeleteRule(ctx context.Context, scoutID, ruleID string) error {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	if err := c.checkEditable(ctx, scoutID); err != nil {
		return err
	}
	return c.deleteRule(ctx, scoutID, ruleID, true)
}

// deleteRule deletes a rule; record as for addRule.
func (c *Core) deleteRule(ctx context.Context, scoutID, ruleID string, record bool) error {
	s, err := c.ruleScout(ctx, scoutID)
	if err != nil {
		return err
	}
	c.rules.mu.Lock()
	err = c.DB.DeleteRule(ctx, s.ID, ruleID)
	delete(c.rules.sets, s.ID)
	c.rules.mu.Unlock()
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", scoutID, ruleID)
	}
	if err != nil {
		return err
	}
	_, err = c.afterRuleChange(ctx, s, "", recorded(record, fmt.Sprintf("rule %q deleted", ruleID)))
	return err
}

// ReorderRules puts a scout's rules in the order of ids (each once).
func (c *Core) ReorderRules(ctx context.Context, scoutID string, ids []string) ([]RuleView, error) {
	ctx, done := c.changeDefinitions(ctx)
	defer done()
	if err := c.checkEditable(ctx, scoutID); err != nil {
		return nil, err
	}
	s, err := c.ruleScout(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	c.rules.mu.Lock()
	err = c.DB.ReorderRules(ctx, s.ID, ids, c.now())
	delete(c.rules.sets, s.ID)
	c.rules.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if _, err := c.afterRuleChange(ctx, s, "", "rules reordered"); err != nil {
		return nil, err
	}
	return c.ListRules(ctx, scoutID)
}

// MoveRule moves a rule to position (0 is first; past the end is last).
func (c *Core) MoveRule(ctx context.Context, scoutID, ruleID string, position int) ([]RuleView, error) {
	ctx, done := c.changeDefinitions(ctx) // the order read is the order changed
	defer done()
	list, err := c.ListRules(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	var ids []string
	found := false
	for _, r := range list {
		if r.Rule.ID == ruleID {
			found = true
			continue
		}
		ids = append(ids, r.Rule.ID)
	}
	if !found {
		return nil, scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", scoutID, ruleID)
	}
	position = min(max(position, 0), len(ids))
	return c.ReorderRules(ctx, scoutID, slices.Insert(ids, position, ruleID))
}

// afterRuleChange tells whoever applies the scout's rules: the engine
// reads them afresh (the cache was dropped), a Gmail scout's pipeline is
// restarted with them, the relay hears of a relay-triage scout's. With a
// note (what changed), the scout's definition records a new version at
// once, so its history shows the change and the next suggestions name
// that version. It returns the rule changed, if any.
func (c *Core) afterRuleChange(ctx context.Context, s scouts.Scout, ruleID, note string) (RuleView, error) {
	restart := c.kinds[s.Kind].connectorRules
	if restart {
		// The scout's definition changed: a newer version restarts its
		// runner (its pipeline compiles the rules it can apply) and is
		// what the relay is sent.
		s.UpdatedAt = c.now()
		if err := c.DB.UpdateScout(ctx, s); err != nil {
			return RuleView{}, err
		}
	}
	// The version first, so that the restarted runner's first run
	// records it; the rules changed either way, so the runner and the
	// relay hear of them even if it could not be recorded.
	var snapErr error
	if note != "" {
		if _, err := c.SnapshotDefinition(ctx, s.ID, actorOf(ctx), note); err != nil {
			snapErr = fmt.Errorf("core: the rules of %s changed, but their version was not recorded: %w", s.ID, err)
		}
	}
	if restart {
		c.syncScout(ctx, s)
		if err := c.queueScoutOp(ctx, protocol.TypeScoutUpdate, s, ""); err != nil {
			return RuleView{}, errors.Join(err, snapErr)
		}
	}
	if snapErr != nil {
		return RuleView{}, snapErr
	}
	if note != "" {
		if err := c.writeFileAsked(ctx, s.ID); err != nil {
			return RuleView{}, err
		}
	}
	c.Bus.Publish(scouts.Event{Type: EventRulesChanged, Data: map[string]string{"scout_id": s.ID}})
	if ruleID == "" {
		return RuleView{}, nil
	}
	list, err := c.ListRules(ctx, s.ID)
	if err != nil {
		return RuleView{}, err
	}
	for _, v := range list {
		if v.Rule.ID == ruleID {
			return v, nil
		}
	}
	return RuleView{}, scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", s.ID, ruleID)
}

// recorded is note when the change records a version, "" when it does
// not.
func recorded(record bool, note string) string {
	if !record {
		return ""
	}
	return note
}

// migrateGmailRules moves every Gmail scout's old allow/deny rules into
// the rules table, converted (on upgrade, before any scout runs).
func (c *Core) migrateGmailRules(ctx context.Context) error {
	all, err := c.DB.ListScouts(ctx)
	if err != nil {
		return err
	}
	c.rules.mu.Lock()
	defer c.rules.mu.Unlock()
	for _, s := range all {
		if s.Kind == scouts.KindGmail {
			if err := c.adoptGmailRules(ctx, s.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// adoptGmailRules moves the old allow/deny rules a Gmail scout's stored
// configuration holds (from before rules had their own table, or sent by
// an older client) into its rules, converted to the grammar with the same
// meaning, ids and order, after the rules it has. Nothing is lost: the
// configuration keeps them unless every one converted, and both change in
// one transaction. Called with c.rules.mu held.
func (c *Core) adoptGmailRules(ctx context.Context, scoutID string) error {
	s, err := c.DB.GetScout(ctx, scoutID)
	if err != nil {
		return err
	}
	var cfg map[string]json.RawMessage
	if json.Unmarshal(s.Config, &cfg) != nil || cfg["rules"] == nil {
		return nil
	}
	var old []triage.Rule
	if err := json.Unmarshal(cfg["rules"], &old); err != nil {
		return fmt.Errorf("core: gmail scout %s: its old rules cannot be read: %w", scoutID, err)
	}
	existing, err := c.DB.ListRules(ctx, scoutID)
	if err != nil {
		return err
	}
	have := map[string]json.RawMessage{}
	for _, r := range existing {
		have[r.ID] = r.Doc
	}
	now := c.now()
	var rows []localdb.RuleRow
	for _, o := range old {
		r, err := ruleset.FromTriage(o)
		if err != nil {
			return fmt.Errorf("core: gmail scout %s: %w", scoutID, err)
		}
		doc, _ := json.Marshal(r)
		if prev, ok := have[r.ID]; ok {
			if string(prev) == string(doc) {
				continue // already moved (a configuration sent again)
			}
			for i := 2; have[r.ID] != nil; i++ {
				r.ID = fmt.Sprintf("%s-%d", o.ID, i)
			}
			doc, _ = json.Marshal(r)
		}
		if _, err := c.compileRule(s, doc); err != nil {
			return fmt.Errorf("core: gmail scout %s: old rule %s: %w", scoutID, o.ID, err)
		}
		have[r.ID] = doc
		rows = append(rows, localdb.RuleRow{ScoutID: scoutID, ID: r.ID, Enabled: true, Doc: doc, CreatedAt: now, UpdatedAt: now})
	}
	delete(cfg, "rules")
	newCfg, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("core: gmail scout %s: %w", scoutID, err)
	}
	if err := c.DB.MoveGmailRules(ctx, scoutID, newCfg, rows); err != nil {
		return err
	}
	delete(c.rules.sets, scoutID)
	c.log.Info("gmail: the scout's allow/deny rules are now rules of the grammar", "scout", scoutID, "rules", len(rows))
	return nil
}
