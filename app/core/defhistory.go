package core

import (
	"bytes"
	"context"
	"slices"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// A scout's history in exports and imports (docs/definitions.md, "Export
// and import"): an export can carry each scout's past versions, and an
// import recreates them on an agent that lacks them, with their numbers.

// pastVersions is a scout's history as an export carries it, oldest
// first.
func (c *Core) pastVersions(ctx context.Context, scoutID string) ([]definition.PastVersion, error) {
	list, err := c.DB.ListScoutVersions(ctx, scoutID)
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

// historyToAdd is what of definition i's history an import adds to cur
// (nil: a scout the import creates): the versions it lacks, oldest first.
// A scout whose own history disagrees with the definition's — another
// document under a number both have, or versions of its own after the
// point where the definition's history goes on — is refused: its history
// is never rewritten, and one history grafted on another would say
// things happened that did not.
func (c *Core) historyToAdd(ctx context.Context, i int, d definition.Document, cur *scouts.Scout) ([]definition.PastVersion, error) {
	if len(d.History) == 0 {
		return nil, nil
	}
	want := slices.Clone(d.History)
	slices.SortFunc(want, func(a, b definition.PastVersion) int { return a.Version - b.Version })
	if cur == nil {
		return want, nil
	}
	// As reading the history does, a change made outside a definition is
	// recorded first: it is part of the scout's history.
	have, err := c.ScoutHistory(ctx, cur.ID)
	if err != nil {
		return nil, err
	}
	newest := 0
	docs := map[int][]byte{}
	for _, v := range have {
		docs[v.Version] = v.Document
		newest = max(newest, v.Version)
	}
	var out []definition.PastVersion
	for _, v := range want {
		doc, ok := docs[v.Version]
		switch {
		case ok && bytes.Equal(compactJSON(doc), compactJSON(v.Document)):
			continue
		case ok:
			return nil, scouts.Errorf(scouts.EConflict, "definition %d (%s): scout %s has another history: its version %d is not the one in the import "+
				"(import the definition without its history — scouts import --no-history — to make it a new version)", i+1, d.Name, cur.ID, v.Version)
		case v.Version < newest:
			return nil, scouts.Errorf(scouts.EConflict, "definition %d (%s): scout %s has another history: it has no version %d but has versions after it "+
				"(import the definition without its history — scouts import --no-history — to make it a new version)", i+1, d.Name, cur.ID, v.Version)
		}
		out = append(out, v)
	}
	return out, nil
}

// addPastVersions records the versions an import brings from a history.
// One that means the same as the scout's definition now is stored as the
// agent writes that definition, so that recording the current version
// next finds it unchanged instead of adding a copy.
func (c *Core) addPastVersions(ctx context.Context, scoutID string, past []definition.PastVersion) error {
	if len(past) == 0 {
		return nil
	}
	s, err := c.DB.GetScout(ctx, scoutID)
	if err != nil {
		return err
	}
	d, err := c.DefinitionOf(ctx, s)
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
	return c.DB.AddPastScoutVersions(ctx, scoutID, rows)
}
