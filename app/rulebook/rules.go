package rulebook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/ruleset"
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

// List returns a scout's rules in the order they are tried.
func (b *Book) List(ctx context.Context, scoutID string) ([]RuleView, error) {
	s, err := b.ruleScout(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	cr, err := b.rulesOf(ctx, s)
	if err != nil {
		return nil, err
	}
	relay := map[string]bool{}
	if b.cfg.Host.RelayTriaged(s) {
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
			return nil, fmt.Errorf("rules: rule %s of %s: %w", row.ID, scoutID, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ruleScout returns a scout that can have rules.
func (b *Book) ruleScout(ctx context.Context, scoutID string) (scouts.Scout, error) {
	s, err := b.cfg.Store.GetScout(ctx, scoutID)
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

// change makes a change to a scout's rules through the definitions
// service (defsync.Service.Change): like every rule change, it is refused
// for a scout a definitions file manages (its rules are the file's)
// unless ctx asks to write the file (defsync.WithWriteFile), which then
// holds the change; the scout's definition records a new version at once,
// so its history shows the change and the next suggestions name that
// version. Once it is done, whoever applies the scout's rules hears of
// it; ruleID, when set, is the rule returned as it is now.
func (b *Book) change(ctx context.Context, scoutID, note string, fn func(tx *defsync.Tx, s scouts.Scout) (ruleID string, err error)) (RuleView, error) {
	var s scouts.Scout
	var ruleID string
	err := b.cfg.Defs.Change(ctx, defsync.Edit{ScoutID: scoutID, Note: note, WriteFile: defsync.WritesFile(ctx)}, func(tx *defsync.Tx) error {
		var err error
		if s, err = b.ruleScout(ctx, scoutID); err != nil {
			return err
		}
		if ruleID, err = fn(tx, s); err != nil {
			return err
		}
		return b.changed(ctx, s)
	})
	if err != nil {
		return RuleView{}, err
	}
	b.publish(scouts.Event{Type: EventRulesChanged, Data: map[string]string{"scout_id": s.ID}})
	if ruleID == "" {
		return RuleView{}, nil
	}
	list, err := b.List(ctx, s.ID)
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

// changed tells whoever applies the scout's rules, under the change: the
// engine reads them afresh (the cache was dropped); a scout whose
// connector applies them too (a Gmail scout's pipeline) has a newer
// version, which restarts its runner once the change is done and is what
// the relay is sent.
func (b *Book) changed(ctx context.Context, s scouts.Scout) error {
	if !b.cfg.Host.ConnectorRules(s.Kind) {
		return nil
	}
	s.UpdatedAt = b.now()
	if err := b.cfg.Store.UpdateScout(ctx, s); err != nil {
		return err
	}
	b.cfg.Defs.Restart(s)
	return b.cfg.Host.QueueScoutUpdate(ctx, s)
}

// Add checks a rule document and adds it to a scout's rules at position
// (-1: last).
func (b *Book) Add(ctx context.Context, scoutID string, doc []byte, position int) (RuleView, error) {
	return b.change(ctx, scoutID, "", func(tx *defsync.Tx, s scouts.Scout) (string, error) {
		comp, err := b.compile(s, doc)
		if err != nil {
			return "", err
		}
		stored, on := storedDoc(comp.Rule)
		now := b.now()
		b.mu.Lock()
		if _, err := b.rulesOfLocked(ctx, s); err != nil { // old Gmail rules first
			b.mu.Unlock()
			return "", err
		}
		_, err = b.cfg.Store.AddRule(ctx, localdb.RuleRow{ScoutID: s.ID, ID: comp.Rule.ID, Position: position, Enabled: on, Doc: stored,
			CreatedAt: now, UpdatedAt: now}, rules.MaxRules)
		b.forget(s.ID)
		b.mu.Unlock()
		if err != nil {
			return "", err
		}
		tx.Note(fmt.Sprintf("rule %q added", comp.Rule.ID))
		return comp.Rule.ID, nil
	})
}

// Update replaces a rule's document; its id cannot change.
func (b *Book) Update(ctx context.Context, scoutID, ruleID string, doc []byte) (RuleView, error) {
	return b.change(ctx, scoutID, fmt.Sprintf("rule %q edited", ruleID), func(_ *defsync.Tx, s scouts.Scout) (string, error) {
		doc, err := withID(doc, ruleID)
		if err != nil {
			return "", err
		}
		comp, err := b.compile(s, doc)
		if err != nil {
			return "", err
		}
		stored, on := storedDoc(comp.Rule)
		return ruleID, b.updateRow(ctx, s, localdb.RuleRow{ScoutID: s.ID, ID: ruleID, Enabled: on, Doc: stored, UpdatedAt: b.now()})
	})
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

// SetEnabled switches a rule on or off.
func (b *Book) SetEnabled(ctx context.Context, scoutID, ruleID string, on bool) (RuleView, error) {
	note := fmt.Sprintf("rule %q switched %s", ruleID, map[bool]string{true: "on", false: "off"}[on])
	return b.change(ctx, scoutID, note, func(_ *defsync.Tx, s scouts.Scout) (string, error) {
		cr, err := b.rulesOf(ctx, s)
		if err != nil {
			return "", err
		}
		i := slices.IndexFunc(cr.rows, func(r localdb.RuleRow) bool { return r.ID == ruleID })
		if i < 0 {
			return "", scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", scoutID, ruleID)
		}
		row := cr.rows[i]
		row.Enabled, row.UpdatedAt = on, b.now()
		return ruleID, b.updateRow(ctx, s, row)
	})
}

func (b *Book) updateRow(ctx context.Context, s scouts.Scout, row localdb.RuleRow) error {
	b.mu.Lock()
	_, err := b.cfg.Store.UpdateRule(ctx, row)
	b.forget(s.ID)
	b.mu.Unlock()
	if scouts.ErrorCode(err) == scouts.ENotFound {
		return scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", s.ID, row.ID)
	}
	return err
}

// Delete deletes a rule.
func (b *Book) Delete(ctx context.Context, scoutID, ruleID string) error {
	_, err := b.change(ctx, scoutID, fmt.Sprintf("rule %q deleted", ruleID), func(_ *defsync.Tx, s scouts.Scout) (string, error) {
		b.mu.Lock()
		err := b.cfg.Store.DeleteRule(ctx, s.ID, ruleID)
		b.forget(s.ID)
		b.mu.Unlock()
		if scouts.ErrorCode(err) == scouts.ENotFound {
			return "", scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", scoutID, ruleID)
		}
		return "", err
	})
	return err
}

// Reorder puts a scout's rules in the order of ids (each once).
func (b *Book) Reorder(ctx context.Context, scoutID string, ids []string) ([]RuleView, error) {
	if _, err := b.change(ctx, scoutID, "rules reordered", func(_ *defsync.Tx, s scouts.Scout) (string, error) {
		return "", b.reorder(ctx, s, ids)
	}); err != nil {
		return nil, err
	}
	return b.List(ctx, scoutID)
}

func (b *Book) reorder(ctx context.Context, s scouts.Scout, ids []string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.cfg.Store.ReorderRules(ctx, s.ID, ids, b.now())
	b.forget(s.ID)
	return err
}

// Move moves a rule to position (0 is first; past the end is last). The
// order read is the order changed: both are under the change.
func (b *Book) Move(ctx context.Context, scoutID, ruleID string, position int) ([]RuleView, error) {
	if _, err := b.change(ctx, scoutID, "rules reordered", func(_ *defsync.Tx, s scouts.Scout) (string, error) {
		list, err := b.List(ctx, scoutID)
		if err != nil {
			return "", err
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
			return "", scouts.Errorf(scouts.ENotFound, "scout %s has no rule %q", scoutID, ruleID)
		}
		position = min(max(position, 0), len(ids))
		return "", b.reorder(ctx, s, slices.Insert(ids, position, ruleID))
	}); err != nil {
		return nil, err
	}
	return b.List(ctx, scoutID)
}

// Replace makes a scout's rules exactly docs, in order, through the rules'
// own checks, under a change of the scout's definition (an import, a
// definitions file, a rollback), which records its version: all are
// checked first, then written in one transaction, so a failure (or a
// crash) half way leaves the rules as they were instead of some of them
// deleted.
func (b *Book) Replace(ctx context.Context, _ *defsync.Tx, scoutID string, docs []json.RawMessage) error {
	s, err := b.ruleScout(ctx, scoutID)
	if err != nil {
		return err
	}
	now := b.now()
	rows := make([]localdb.RuleRow, 0, len(docs))
	for _, d := range docs {
		comp, err := b.compile(s, d)
		if err != nil {
			return err
		}
		stored, on := storedDoc(comp.Rule)
		rows = append(rows, localdb.RuleRow{ScoutID: s.ID, ID: comp.Rule.ID, Enabled: on, Doc: stored, CreatedAt: now, UpdatedAt: now})
	}
	b.mu.Lock()
	if _, err := b.rulesOfLocked(ctx, s); err != nil { // old Gmail rules first, as Add does
		b.mu.Unlock()
		return err
	}
	err = b.cfg.Store.ReplaceRules(ctx, s.ID, rows, rules.MaxRules)
	b.forget(s.ID)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	if err := b.changed(ctx, s); err != nil {
		return err
	}
	b.publish(scouts.Event{Type: EventRulesChanged, Data: map[string]string{"scout_id": s.ID}})
	return nil
}
