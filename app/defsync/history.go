package defsync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// A scout's history in exports and imports (docs/definitions.md, "Export
// and import"): an export can carry each scout's past versions, and an
// import recreates them on an agent that lacks them, or appends those a
// scout lacks after its newest as the import's.

// pastVersions is a scout's history as an export carries it, oldest
// first.
func (s *Service) pastVersions(ctx context.Context, scoutID string) ([]definition.PastVersion, error) {
	list, err := s.cfg.Store.ListScoutVersions(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	out := make([]definition.PastVersion, 0, len(list))
	for _, v := range slices.Backward(list) {
		out = append(out, definition.PastVersion{Version: v.Version, CreatedAt: v.CreatedAt, Actor: v.Actor, Note: v.Note,
			Document: v.Document})
	}
	return out, nil
}

// historyToAdd is what of definition i's history an import by actor adds
// to cur (nil: a scout the import creates), oldest first, as it is to be
// recorded.
//
// The histories are compared in order, version by version: the scout's
// own must be the start of the import's. One that disagrees — another
// document at a place both have — is refused: its history is never
// rewritten, and one history grafted on another would say things
// happened that did not. What the import has beyond the scout's newest
// is appended, and is the import's (appendedVersions); a history that
// creates its scout keeps its authors (createdHistory). Either way no
// version is dated after the import, and none is missing: a file could
// claim a version 99 by the window dated 2099, versions 5–98 silently
// missing.
func (s *Service) historyToAdd(ctx context.Context, tx *Tx, i int, d definition.Document, cur *scouts.Scout, actor string) ([]definition.PastVersion, error) {
	if len(d.History) == 0 {
		return nil, nil
	}
	want := slices.Clone(d.History)
	slices.SortFunc(want, func(a, b definition.PastVersion) int { return a.Version - b.Version })
	now := s.now()
	if cur == nil {
		return createdHistory(want, now), nil
	}
	// As reading the history does, a change made outside a definition is
	// recorded first: it is part of the scout's history.
	have, err := s.history(ctx, tx, cur.ID)
	if err != nil {
		return nil, err
	}
	slices.Reverse(have) // oldest first
	for j, v := range have {
		if j == len(want) {
			break // the scout went on since the export: nothing to add
		}
		if !bytes.Equal(compactJSON(v.Document), compactJSON(want[j].Document)) {
			return nil, scouts.Errorf(scouts.EConflict, "definition %d (%s): scout %s has another history: its version %d is not the one in the import (history version %d) "+
				"(import the definition without its history — scouts import --no-history — to make it a new version)", i+1, d.Name, cur.ID, v.Version, want[j].Version)
		}
	}
	if len(want) <= len(have) {
		return nil, nil
	}
	newest := 0
	if len(have) > 0 {
		newest = have[len(have)-1].Version
	}
	return appendedVersions(want[len(have):], newest, actor, now), nil
}

// createdHistory is the history of a scout an import creates: its
// versions with their authors and notes (the scout's life on the agent
// it was exported from), numbered from 1 on and dated in order, never
// after now. What the import said otherwise is kept in the note.
func createdHistory(want []definition.PastVersion, now time.Time) []definition.PastVersion {
	out := make([]definition.PastVersion, 0, len(want))
	var prev time.Time
	for j, v := range want {
		var changed []string
		if v.Version != j+1 {
			changed = append(changed, fmt.Sprintf("version %d", v.Version))
			v.Version = j + 1
		}
		at := v.CreatedAt
		if at.Before(prev) {
			at = prev
		}
		if at.After(now) {
			at = now
		}
		if !at.Equal(v.CreatedAt) {
			changed = append(changed, "dated "+v.CreatedAt.UTC().Format(time.RFC3339))
			v.CreatedAt = at
		}
		prev = v.CreatedAt
		if len(changed) > 0 {
			v.Note = strings.TrimSpace(v.Note + " (" + strings.Join(changed, ", ") + " in the import)")
		}
		out = append(out, v)
	}
	return out
}

// appendedVersions are versions an import appends to a scout's history
// after its newest: recorded as the import's (by actor, now) and numbered
// on from newest, with what the export said of each — its number, author,
// date and note — kept in the note.
func appendedVersions(want []definition.PastVersion, newest int, actor string, now time.Time) []definition.PastVersion {
	if actor == "" {
		actor = "import"
	}
	out := make([]definition.PastVersion, 0, len(want))
	for j, v := range want {
		by := v.Actor
		if by == "" {
			by = "nobody named"
		}
		note := fmt.Sprintf("imported version %d (by %s, %s)", v.Version, by, v.CreatedAt.UTC().Format(time.RFC3339))
		if v.Note != "" {
			note += ": " + v.Note
		}
		out = append(out, definition.PastVersion{Version: newest + j + 1, CreatedAt: now, Actor: actor, Note: note, Document: v.Document})
	}
	return out
}

// addPastVersions records the versions an import brings from a history.
// One that means the same as the scout's definition now is stored as the
// agent writes that definition, so that recording the current version
// next finds it unchanged instead of adding a copy.
func (s *Service) addPastVersions(ctx context.Context, scoutID string, past []definition.PastVersion) error {
	if len(past) == 0 {
		return nil
	}
	sc, err := s.cfg.Store.GetScout(ctx, scoutID)
	if err != nil {
		return err
	}
	d, err := s.Document(ctx, sc)
	if err != nil {
		return err
	}
	now, err := definition.Marshal(d)
	if err != nil {
		return err
	}
	rows := make([]localdb.ScoutVersion, 0, len(past))
	for _, v := range past {
		doc := []byte(v.Document)
		if bytes.Equal(compactJSON(doc), compactJSON(now)) {
			doc = now
		}
		rows = append(rows, localdb.ScoutVersion{ScoutID: scoutID, Version: v.Version, Document: doc, CreatedAt: v.CreatedAt,
			Actor: v.Actor, Note: v.Note})
	}
	return s.cfg.Store.AddPastScoutVersions(ctx, scoutID, rows)
}

// checkPastActions checks the actions of the rules in the past versions an
// import brings (an export with its history): they would be stored as they
// are, for good. Only the actions' parameters are checked: the rest of an
// old version was checked when it was current, and the grammar may have
// moved on since.
func (s *Service) checkPastActions(i int, d definition.Document) error {
	if len(d.History) == 0 {
		return nil
	}
	o := s.cfg.Host.RuleOptions(scouts.Kind(d.Kind))
	for _, v := range d.History {
		var past struct {
			Rules []struct {
				ID   string `json:"id"`
				Then struct {
					Actions []struct {
						Action string          `json:"action"`
						Params json.RawMessage `json:"params"`
					} `json:"actions"`
				} `json:"then"`
			} `json:"rules"`
		}
		if json.Unmarshal(v.Document, &past) != nil {
			continue // not this check's to say: the history's own checks read it
		}
		for _, r := range past.Rules {
			for k, a := range r.Then.Actions {
				if err := o.ValidateAction(a.Action, a.Params); err != nil {
					return scouts.Errorf(scouts.EInvalid, "definition %d (%s): version %d of its history: rule %q at /then/actions/%d: %v",
						i+1, d.Name, v.Version, r.ID, k, err)
				}
			}
		}
	}
	return nil
}
