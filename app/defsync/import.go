package defsync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
	"github.com/scouts-hq/scouts/scouts/rules"
)

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

// Import matches each document to a scout (by id, else by name and kind)
// and creates or updates it. All documents are checked before any is
// applied; the first that cannot be applied stops the rest. A dry run
// (without o.Apply) holds the lock too: what it compares with is then
// what an import applied would change, and a scout's history it reads
// records a change being saved as its author's.
func (s *Service) Import(ctx context.Context, docs []definition.Document, o ImportOptions) ([]DefinitionChange, error) {
	tx := s.begin()
	defer s.end(ctx)
	return s.importDocs(ctx, tx, docs, o)
}

// plan is one document of an import, matched and checked.
type plan struct {
	doc  definition.Document
	cur  *scouts.Scout
	past []definition.PastVersion
}

func (s *Service) importDocs(ctx context.Context, tx *Tx, docs []definition.Document, o ImportOptions) ([]DefinitionChange, error) {
	existing, err := s.cfg.Store.ListScouts(ctx)
	if err != nil {
		return nil, err
	}
	plans := make([]plan, 0, len(docs))
	seen := map[string]bool{}
	for i, d := range docs {
		p, err := s.planDoc(ctx, tx, i, d, existing, seen, o)
		if err != nil {
			return nil, err
		}
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
				if err := s.createFromDefinition(ctx, tx, p.doc, p.past, o, &ch); err != nil {
					return out, fmt.Errorf("%s: %w", p.doc.Name, err)
				}
			}
			out = append(out, ch)
			continue
		}
		ch.ScoutID = p.cur.ID
		cur, err := s.Document(ctx, *p.cur)
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
			if err := s.applyDefinition(ctx, tx, *p.cur, cur, p.doc, p.past, o, &ch); err != nil {
				return out, fmt.Errorf("%s: %w", p.doc.Name, err)
			}
		}
		out = append(out, ch)
	}
	return out, nil
}

// planDoc matches definition i to a scout and checks it as the scout will
// hold it; seen are the scouts the definitions before it matched.
func (s *Service) planDoc(ctx context.Context, tx *Tx, i int, d definition.Document, existing []scouts.Scout, seen map[string]bool, o ImportOptions) (plan, error) {
	if from := s.kind(scouts.Kind(d.Kind)).FromDefinition; from != nil {
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
		return p, scouts.Errorf(scouts.EInvalid, "definition %d (%s): scout %s is a %s scout, not %s", i+1, d.Name, p.cur.ID, p.cur.Kind, d.Kind)
	}
	// Each rule as the scout will hold it (its defaults spelt out), so
	// that a definition read again compares equal to the scout.
	ruleIDs := make(map[string]bool, len(d.Rules))
	if len(d.Rules) > 0 {
		p.doc.Rules = make([]json.RawMessage, 0, len(d.Rules))
	}
	for _, r := range d.Rules {
		comp, err := rules.Compile(d.Kind, r, s.cfg.Host.RuleOptions(scouts.Kind(d.Kind)))
		if err != nil {
			return p, scouts.Errorf(scouts.EInvalid, "definition %d (%s): rule: %v", i+1, d.Name, err)
		}
		if ruleIDs[comp.Rule.ID] {
			return p, scouts.Errorf(scouts.EInvalid, "definition %d (%s): two rules have the id %q; a rule's id is unique within its scout", i+1, d.Name, comp.Rule.ID)
		}
		ruleIDs[comp.Rule.ID] = true
		defined, err := definedRule(storedDoc(comp.Rule))
		if err != nil {
			return p, err
		}
		p.doc.Rules = append(p.doc.Rules, defined)
	}
	if d.Learning != nil {
		if err := scouts.LearnSettings(*d.Learning).Validate(); err != nil {
			return p, err
		}
	}
	if err := writeScopeOf(d).Validate(); err != nil {
		return p, scouts.Errorf(scouts.EInvalid, "definition %d (%s): %s", i+1, d.Name, scouts.ErrorMessage(err))
	}
	key := d.ID
	if p.cur != nil {
		key = p.cur.ID
	}
	if key != "" && seen[key] {
		return p, scouts.Errorf(scouts.EInvalid, "definition %d (%s): scout %s is defined twice", i+1, d.Name, key)
	}
	seen[key] = true
	if o.WithoutHistory {
		p.doc.History = nil
	}
	if err := s.checkPastActions(i, p.doc); err != nil {
		return p, err
	}
	var err error
	if p.past, err = s.historyToAdd(ctx, tx, i, p.doc, p.cur, o.Actor); err != nil {
		return p, err
	}
	p.doc.History = nil
	return p, nil
}

func (s *Service) createFromDefinition(ctx context.Context, tx *Tx, d definition.Document, past []definition.PastVersion, o ImportOptions, ch *DefinitionChange) error {
	in := scouts.Scout{ID: d.ID, Kind: scouts.Kind(d.Kind), Name: d.Name, Review: d.Review, Enabled: d.Enabled, Config: d.Source,
		Schedule: scheduleOf(d), Budget: budgetOf(d), WriteScope: writeScopeOf(d)}
	if s.kind(in.Kind).HookToken {
		in.Config = nil // the relay's
	}
	created, token, err := s.cfg.Host.CreateScout(ctx, tx, in)
	if err != nil {
		return err
	}
	ch.ScoutID, ch.HookToken = created.ID, token
	return s.finishDefinition(ctx, tx, created, definition.Document{}, d, past, o, ch)
}

func (s *Service) applyDefinition(ctx context.Context, tx *Tx, sc scouts.Scout, cur, d definition.Document, past []definition.PastVersion, o ImportOptions, ch *DefinitionChange) error {
	sched, budget := scheduleOf(d), budgetOf(d)
	scope := writeScopeOf(d)
	set := Settings{Name: &d.Name, Enabled: &d.Enabled, Review: &d.Review, Schedule: &sched, Budget: &budget, WriteScope: &scope}
	if !s.kind(sc.Kind).HookToken && !bytes.Equal(compactJSON(cur.Source), compactJSON(d.Source)) {
		cfg, err := s.mergeConfig(sc, d.Source)
		if err != nil {
			return err
		}
		set.Config = cfg
	}
	if err := s.cfg.Host.UpdateScout(ctx, tx, sc.ID, set); err != nil {
		return err
	}
	return s.finishDefinition(ctx, tx, sc, cur, d, past, o, ch)
}

// finishDefinition writes what a scout row does not hold (rules, learner
// thresholds, who manages it), the past versions an export's history
// brings, and records the version.
func (s *Service) finishDefinition(ctx context.Context, tx *Tx, sc scouts.Scout, cur, d definition.Document, past []definition.PastVersion, o ImportOptions, ch *DefinitionChange) error {
	if !slices.EqualFunc(cur.Rules, d.Rules, func(a, b json.RawMessage) bool { return bytes.Equal(compactJSON(a), compactJSON(b)) }) {
		if err := s.cfg.Host.ReplaceRules(ctx, tx, sc.ID, d.Rules); err != nil {
			return err
		}
	}
	if d.Learning != nil && (cur.Learning == nil || *cur.Learning != *d.Learning) {
		if err := s.cfg.Store.SetLearnSettings(ctx, sc.ID, scouts.LearnSettings(*d.Learning)); err != nil {
			return err
		}
	}
	if !o.KeepManager {
		if err := s.cfg.Store.SetScoutManagedBy(ctx, sc.ID, o.ManagedBy); err != nil {
			return err
		}
	}
	if err := s.addPastVersions(ctx, sc.ID, past); err != nil {
		return err
	}
	note := o.Note
	if ch.Action == "create" && o.CreateNote != "" {
		note = o.CreateNote
	}
	v, err := s.record(ctx, tx, sc.ID, o.Actor, note)
	ch.Version = v
	return err
}

// storedDoc is a compiled rule's document as the rules table stores it:
// without its enabled flag, which is the row's.
func storedDoc(r rules.Rule) (json.RawMessage, bool) {
	on := r.IsEnabled()
	r.Enabled = nil
	b, _ := json.Marshal(r)
	return b, on
}

// mergeConfig is a definition's source over the scout's stored
// configuration's internal fields.
func (s *Service) mergeConfig(sc scouts.Scout, source json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(source) > 0 {
		if err := json.Unmarshal(source, &m); err != nil {
			return nil, scouts.Errorf(scouts.EInvalid, "source: %v", err)
		}
	}
	var old map[string]json.RawMessage
	if len(sc.Config) > 0 && json.Unmarshal(sc.Config, &old) == nil {
		for _, k := range s.kind(sc.Kind).InternalKeys {
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

// writeScopeOf is a definition's write scope; a definition without one
// has the default.
func writeScopeOf(d definition.Document) scouts.WriteScope {
	if d.WriteScope == nil {
		return scouts.WriteScope{}
	}
	return scouts.WriteScope{Folders: definition.ScopeItems(d.WriteScope.Folders), Labels: definition.ScopeItems(d.WriteScope.Labels),
		Hosts: definition.ScopeItems(d.WriteScope.Hosts)}
}

func budgetOf(d definition.Document) scouts.Budget {
	if d.Budget == nil {
		return scouts.Budget{}
	}
	return scouts.Budget{RunTokens: d.Budget.RunTokens, DayTokens: d.Budget.DayTokens}
}
