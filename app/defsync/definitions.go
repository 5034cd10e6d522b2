package defsync

import (
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

// Document is a stored scout as a definition.
func (s *Service) Document(ctx context.Context, sc scouts.Scout) (definition.Document, error) {
	d := definition.Document{Version: definition.FormatVersion, ID: sc.ID, Kind: string(sc.Kind), Name: sc.Name,
		Enabled: sc.Enabled, Review: sc.Review}
	var cfg map[string]json.RawMessage
	if len(sc.Config) > 0 {
		if err := json.Unmarshal(sc.Config, &cfg); err != nil {
			return d, fmt.Errorf("defs: definition of %s: %w", sc.ID, err)
		}
	}
	for _, k := range s.kind(sc.Kind).InternalKeys {
		delete(cfg, k)
	}
	if len(cfg) > 0 {
		d.Source, _ = json.Marshal(cfg)
	}
	if slices.Contains(rules.Kinds(), string(sc.Kind)) {
		rows, err := s.cfg.Store.ListRules(ctx, sc.ID)
		if err != nil {
			return d, err
		}
		for _, r := range rows {
			b, err := definedRule(r.Doc, r.Enabled)
			if err != nil {
				return d, fmt.Errorf("defs: rule %s of %s: %w", r.ID, sc.ID, err)
			}
			d.Rules = append(d.Rules, b)
		}
	}
	st, err := s.cfg.Store.LearnState(ctx, sc.ID)
	if err != nil {
		return d, err
	}
	l := definition.Learning(st.Settings)
	d.Learning = &l
	if sc.Schedule != (scouts.Schedule{}) {
		d.Schedule = &definition.Schedule{Cron: sc.Schedule.Cron, TimeZone: sc.Schedule.TimeZone,
			Overlap: string(sc.Schedule.Overlap), CatchUp: string(sc.Schedule.CatchUp)}
	}
	if sc.Budget != (scouts.Budget{}) {
		d.Budget = &definition.Budget{RunTokens: sc.Budget.RunTokens, DayTokens: sc.Budget.DayTokens}
	}
	if !sc.WriteScope.IsZero() {
		w := sc.WriteScope
		d.WriteScope = &definition.WriteScope{Folders: definition.ScopeList(w.Folders), Labels: definition.ScopeList(w.Labels), Hosts: definition.ScopeList(w.Hosts)}
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

// record records a scout's current definition as a new version if it
// changed since the last one; it returns the current version. It is the
// one place a version is recorded, always under the lock (tx).
func (s *Service) record(ctx context.Context, _ *Tx, scoutID, actor, note string) (int, error) {
	sc, err := s.cfg.Store.GetScout(ctx, scoutID)
	if err != nil {
		return 0, err
	}
	d, err := s.Document(ctx, sc)
	if err != nil {
		return 0, err
	}
	doc, err := definition.Marshal(d)
	if err != nil {
		return 0, err
	}
	if note == "" {
		note = s.changeNote(ctx, sc.ID, doc)
	}
	v, added, err := s.cfg.Store.AddScoutVersion(ctx, localdb.ScoutVersion{ScoutID: sc.ID, Document: doc, CreatedAt: s.now(), Actor: actor, Note: note})
	if err != nil {
		return 0, err
	}
	if added {
		s.publish(scouts.Event{Type: EventVersion, Data: map[string]any{"scout_id": sc.ID, "version": v}})
	}
	return v, nil
}

// EventVersion is published when a scout's definition gets a new version.
const EventVersion = "scout.version"

// ExportOptions say what an export holds besides the definitions.
type ExportOptions struct {
	// History adds each scout's past versions (definition.PastVersion),
	// oldest first.
	History bool
}

// Export returns the definitions of the scouts named (every scout when
// none is), current versions recorded first.
func (s *Service) Export(ctx context.Context, ids []string, o ExportOptions) ([]definition.Document, error) {
	var list []scouts.Scout
	if len(ids) == 0 {
		all, err := s.cfg.Store.ListScouts(ctx)
		if err != nil {
			return nil, err
		}
		list = all
	}
	for _, id := range ids {
		sc, err := s.cfg.Store.GetScout(ctx, id)
		if err != nil {
			return nil, err
		}
		list = append(list, sc)
	}
	// A change being saved is its author's, not the export's.
	tx := s.begin()
	defer s.end(ctx)
	out := make([]definition.Document, 0, len(list))
	for _, sc := range list {
		if _, err := s.record(ctx, tx, sc.ID, "export", ""); err != nil {
			return nil, err
		}
		d, err := s.Document(ctx, sc)
		if err != nil {
			return nil, err
		}
		if o.History {
			if d.History, err = s.pastVersions(ctx, sc.ID); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// History returns a scout's versions, newest first.
func (s *Service) History(ctx context.Context, scoutID string) ([]localdb.ScoutVersion, error) {
	tx := s.begin()
	defer s.end(ctx)
	return s.history(ctx, tx, scoutID)
}

// history is History under the lock: a change being saved records its
// own version, with its author, before this one looks for a change made
// outside a definition.
func (s *Service) history(ctx context.Context, tx *Tx, scoutID string) ([]localdb.ScoutVersion, error) {
	if _, err := s.record(ctx, tx, scoutID, "agent", "changed outside a definition"); err != nil {
		return nil, err
	}
	return s.cfg.Store.ListScoutVersions(ctx, scoutID)
}

// Diff says what changed from version a to version b.
func (s *Service) Diff(ctx context.Context, scoutID string, a, b int) ([]definition.Change, error) {
	va, err := s.cfg.Store.GetScoutVersion(ctx, scoutID, a)
	if err != nil {
		return nil, err
	}
	vb, err := s.cfg.Store.GetScoutVersion(ctx, scoutID, b)
	if err != nil {
		return nil, err
	}
	return definition.Diff(va.Document, vb.Document)
}

// Rollback makes an earlier version the scout's definition again, as a
// new version (history is never rewritten). A scout a definitions file
// manages is refused: its file decides its definition, and the next edit
// of the file would silently undo the rollback.
func (s *Service) Rollback(ctx context.Context, scoutID string, version int, actor string) (DefinitionChange, error) {
	v, err := s.cfg.Store.GetScoutVersion(ctx, scoutID, version)
	if err != nil {
		return DefinitionChange{}, err
	}
	by, err := s.ManagerOf(ctx, scoutID)
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
	changes, err := s.Import(ctx, []definition.Document{d}, ImportOptions{Apply: true, Actor: actor,
		Note: fmt.Sprintf("rollback to version %d", version), KeepManager: true})
	if err != nil {
		return DefinitionChange{}, err
	}
	return changes[0], nil
}

// SetLearnSettings changes a scout's learner thresholds, which are part of
// its definition: the change records a version at once, and for a scout a
// definitions file manages it is refused unless ctx asks to write the
// file (WithWriteFile).
func (s *Service) SetLearnSettings(ctx context.Context, id string, set scouts.LearnSettings) error {
	return s.Change(ctx, Edit{ScoutID: id, Note: "learning thresholds changed", WriteFile: WritesFile(ctx)}, func(*Tx) error {
		if _, err := s.cfg.Store.GetScout(ctx, id); err != nil {
			return err
		}
		return s.cfg.Store.SetLearnSettings(ctx, id, set)
	})
}
