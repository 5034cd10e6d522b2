// Package rulebook keeps the scouts' rules (docs/rules.md): it checks a
// rule being saved against the grammar, the action catalogue and the
// executors, stores the rules in the order they are tried, compiles them
// for the engine and the Gmail triage pipelines, and previews a rule on a
// scout's latest items. A rule is part of its scout's definition: every
// change goes through the definitions service's Change, which records the
// version and writes a managed scout's file.
package rulebook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/ruleset"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Store is what the rules read and write of the database (localdb.DB).
type Store interface {
	GetScout(ctx context.Context, id string) (scouts.Scout, error)
	ListScouts(ctx context.Context) ([]scouts.Scout, error)
	UpdateScout(ctx context.Context, s scouts.Scout) error
	ListRules(ctx context.Context, scoutID string) ([]localdb.RuleRow, error)
	AddRule(ctx context.Context, r localdb.RuleRow, max int) (localdb.RuleRow, error)
	UpdateRule(ctx context.Context, r localdb.RuleRow) (localdb.RuleRow, error)
	DeleteRule(ctx context.Context, scoutID, id string) error
	ReorderRules(ctx context.Context, scoutID string, ids []string, at time.Time) error
	ReplaceRules(ctx context.Context, scoutID string, rows []localdb.RuleRow, max int) error
	MoveGmailRules(ctx context.Context, scoutID string, config json.RawMessage, rows []localdb.RuleRow) error
	GetEntity(ctx context.Context, kind scouts.EntityKind, id string) (scouts.Entity, error)
	ListEntities(ctx context.Context, kind scouts.EntityKind, f localdb.EntityFilter) ([]scouts.Entity, error)
	ListSuggestions(ctx context.Context, f localdb.SuggestionFilter) ([]scouts.Suggestion, error)
}

// Host is what the rules ask of the desktop about a scout's kind and its
// relay.
type Host interface {
	// ConnectorRules: the kind's connector applies the scout's rules too
	// (its triage pipeline, here or on the relay), so a change of rules
	// restarts the scout and is sent to the relay.
	ConnectorRules(kind scouts.Kind) bool
	// RelayTriaged: the relay applies the scout's rules it can express
	// before the desktop sees an item (a relay-triage Gmail scout).
	RelayTriaged(s scouts.Scout) bool
	// QueueScoutUpdate tells the relay of a scout's new version, through
	// the outbox, when the relay runs or receives it.
	QueueScoutUpdate(ctx context.Context, s scouts.Scout) error
}

// Config configures a Book.
type Config struct {
	Store Store
	Host  Host
	// Defs is the definitions service every change goes through.
	Defs *defsync.Service
	// Executors are the remote actions the desktop runs: a rule's actions
	// are checked with their own parameter checks (ParamsChecker).
	Executors map[string]engine.ActionExecutor
	// ExtraActions are the actions that come and go while the agent runs
	// (the tools of MCP servers), asked at each check; nil: none.
	ExtraActions func() []actions.Def
	Publish      func(scouts.Event)
	Logger       *slog.Logger
	Now          func() time.Time
}

// Book is the scouts' rules. Its methods are safe for concurrent use.
type Book struct {
	cfg Config
	log *slog.Logger

	// mu guards sets; it also serialises rule changes and migrations.
	// The agent is the only writer of the rules table, so a change here
	// is every change.
	mu   sync.Mutex
	sets map[string]*compiledRules // each scout's compiled rules between changes

	catalogueOnce sync.Once
	catalogue     *actions.Catalogue
}

type compiledRules struct {
	rows     []localdb.RuleRow
	set      rules.Set // enabled or not, in order; only those that compile
	problems map[string]string
}

// New returns a book.
func New(cfg Config) *Book {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Book{cfg: cfg, log: cfg.Logger}
}

func (b *Book) now() time.Time { return b.cfg.Now() }

func (b *Book) publish(ev scouts.Event) {
	if b.cfg.Publish != nil {
		b.cfg.Publish(ev)
	}
}

// Schema returns the rule grammar's JSON Schema; with a scout kind, the
// variant listing that kind's fields.
func (b *Book) Schema(kind string) ([]byte, error) {
	if kind == "" {
		return rules.Schema(), nil
	}
	if !slices.Contains(rules.Kinds(), kind) {
		return nil, scouts.Errorf(scouts.EInvalid, "unknown scout kind %q (want %s)", kind, strings.Join(rules.Kinds(), ", "))
	}
	return rules.SchemaFor(kind)
}

// compile checks a rule document being saved (added, edited, imported,
// previewed) for a scout, with the action catalogue's and the executors'
// say on its actions (Options), and measures its costly regexes
// (rules.Options.Probe).
func (b *Book) compile(s scouts.Scout, doc []byte) (*rules.Compiled, error) {
	return b.compileWith(s, doc, true)
}

// compileWith checks a rule document; probe is false for a rule read back
// from storage, measured when it was saved.
func (b *Book) compileWith(s scouts.Scout, doc []byte, probe bool) (*rules.Compiled, error) {
	o := b.Options(s.Kind)
	o.Probe = probe
	r, err := rules.Compile(string(s.Kind), doc, o)
	if err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "%v", err)
	}
	return r, nil
}

func (b *Book) actionCatalogue() *actions.Catalogue {
	b.catalogueOnce.Do(func() {
		b.catalogue = actions.MustNew()
		if b.cfg.ExtraActions != nil {
			b.catalogue = b.catalogue.WithExtra(b.cfg.ExtraActions)
		}
	})
	return b.catalogue
}

// rulesOf returns a scout's rules compiled (from the cache), after moving
// any old Gmail allow/deny rules its configuration still holds.
func (b *Book) rulesOf(ctx context.Context, s scouts.Scout) (*compiledRules, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rulesOfLocked(ctx, s)
}

func (b *Book) rulesOfLocked(ctx context.Context, s scouts.Scout) (*compiledRules, error) {
	if s.Kind == scouts.KindGmail && hasOldRules(s.Config) {
		// An old client sent the allow/deny lists with the configuration:
		// moved now, whatever the cache holds.
		if err := b.adoptGmailRules(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	if cr := b.sets[s.ID]; cr != nil {
		return cr, nil
	}
	if s.Kind == scouts.KindGmail {
		if err := b.adoptGmailRules(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	rows, err := b.cfg.Store.ListRules(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	cr := &compiledRules{rows: rows, problems: map[string]string{}}
	for _, row := range rows {
		comp, err := b.compileWith(s, withEnabled(row), false)
		if err != nil {
			// Saved valid, refused now (the catalogue changed): skipped,
			// and shown with its problem in the listing.
			b.log.Warn("rule skipped: it no longer compiles", "scout", s.ID, "rule", row.ID, "err", err)
			cr.problems[row.ID] = scouts.ErrorMessage(err)
			continue
		}
		cr.set = append(cr.set, comp)
	}
	if b.sets == nil {
		b.sets = map[string]*compiledRules{}
	}
	b.sets[s.ID] = cr
	return cr, nil
}

// forget drops a scout's compiled rules after a change; called with b.mu
// held.
func (b *Book) forget(scoutID string) { delete(b.sets, scoutID) }

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

// EngineRules is the engine's Rules hook: a scout's rules for one page of
// items.
func (b *Book) EngineRules(ctx context.Context, s scouts.Scout) (scouts.RuleSet, error) {
	if !slices.Contains(rules.Kinds(), string(s.Kind)) {
		return nil, nil
	}
	cr, err := b.rulesOf(ctx, s)
	if err != nil || len(cr.set) == 0 {
		return nil, err
	}
	return &ruleset.Rules{Kind: s.Kind, Set: cr.set, Project: b.findProject, Loc: time.Local, Now: b.now}, nil
}

// findProject resolves a rule's project, an id or the name of an open
// project (case ignored), to its id; "" when there is none.
func (b *Book) findProject(ctx context.Context, idOrName string) (string, error) {
	if strings.HasPrefix(idOrName, "pj_") {
		p, err := b.cfg.Store.GetEntity(ctx, scouts.EntityProject, idOrName)
		if scouts.ErrorCode(err) == scouts.ENotFound {
			return "", nil
		}
		return p.ID, err
	}
	done := false
	list, err := b.cfg.Store.ListEntities(ctx, scouts.EntityProject, localdb.EntityFilter{Done: &done, Limit: 5000})
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

// TriageRules is what a Gmail scout's triage pipeline (the relay's, or
// the desktop's own) applies before its heuristics: the scout's rules it
// can express, from the top; more reports enabled rules beyond them, which
// the desktop applies when the card arrives.
func (b *Book) TriageRules(ctx context.Context, s scouts.Scout) (out []triage.Rule, more bool, err error) {
	cr, err := b.rulesOf(ctx, s)
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

// MigrateGmailRules moves every Gmail scout's old allow/deny rules into
// the rules table, converted (on upgrade, before any scout runs).
func (b *Book) MigrateGmailRules(ctx context.Context) error {
	all, err := b.cfg.Store.ListScouts(ctx)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range all {
		if s.Kind == scouts.KindGmail {
			if err := b.adoptGmailRules(ctx, s.ID); err != nil {
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
// one transaction. Called with b.mu held.
func (b *Book) adoptGmailRules(ctx context.Context, scoutID string) error {
	s, err := b.cfg.Store.GetScout(ctx, scoutID)
	if err != nil {
		return err
	}
	var cfg map[string]json.RawMessage
	if json.Unmarshal(s.Config, &cfg) != nil || cfg["rules"] == nil {
		return nil
	}
	var old []triage.Rule
	if err := json.Unmarshal(cfg["rules"], &old); err != nil {
		return fmt.Errorf("rules: gmail scout %s: its old rules cannot be read: %w", scoutID, err)
	}
	existing, err := b.cfg.Store.ListRules(ctx, scoutID)
	if err != nil {
		return err
	}
	have := map[string]json.RawMessage{}
	for _, r := range existing {
		have[r.ID] = r.Doc
	}
	now := b.now()
	var rows []localdb.RuleRow
	for _, o := range old {
		r, err := ruleset.FromTriage(o)
		if err != nil {
			return fmt.Errorf("rules: gmail scout %s: %w", scoutID, err)
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
		if _, err := b.compile(s, doc); err != nil {
			return fmt.Errorf("rules: gmail scout %s: old rule %s: %w", scoutID, o.ID, err)
		}
		have[r.ID] = doc
		rows = append(rows, localdb.RuleRow{ScoutID: scoutID, ID: r.ID, Enabled: true, Doc: doc, CreatedAt: now, UpdatedAt: now})
	}
	delete(cfg, "rules")
	newCfg, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("rules: gmail scout %s: %w", scoutID, err)
	}
	if err := b.cfg.Store.MoveGmailRules(ctx, scoutID, newCfg, rows); err != nil {
		return err
	}
	b.forget(scoutID)
	b.log.Info("gmail: the scout's allow/deny rules are now rules of the grammar", "scout", scoutID, "rules", len(rows))
	return nil
}
