package defsync

import (
	"context"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// SaveRevision saves d as scout scoutID's definition, as a new version by
// actor with note — a change drafted from base, the version that was
// current when the person asked for it (defdraft.Revise). If the scout
// has another version since (a change in the window, a file, a rollback),
// the change is refused (EConflict): it was drafted, and reviewed, against
// a definition that is no longer the scout's, and saving it would
// silently undo what came between. A scout a definitions file manages is
// refused too, as a rollback is: its file decides its definition.
func (s *Service) SaveRevision(ctx context.Context, scoutID string, base int, d definition.Document, actor, note string) (DefinitionChange, error) {
	tx := s.begin()
	defer s.end(ctx)
	if _, err := s.cfg.Store.GetScout(ctx, scoutID); err != nil {
		return DefinitionChange{}, err
	}
	by, err := s.ManagerOf(ctx, scoutID)
	if err != nil {
		return DefinitionChange{}, err
	}
	if by != "" {
		return DefinitionChange{}, scouts.Errorf(scouts.EConflict, "managed by %s — change the file instead", strings.TrimPrefix(by, "file:"))
	}
	// Reading the history records a change made outside a definition
	// first: that too is a change since the draft.
	have, err := s.history(ctx, tx, scoutID)
	if err != nil {
		return DefinitionChange{}, err
	}
	if len(have) == 0 || have[0].Version != base {
		cur := 0
		if len(have) > 0 {
			cur = have[0].Version
		}
		return DefinitionChange{}, scouts.Errorf(scouts.EConflict,
			"scout %s changed since this change was drafted (from version %d; version %d is current now): nothing saved — ask for the change again", scoutID, base, cur)
	}
	d.ID = scoutID
	changes, err := s.importDocs(ctx, tx, []definition.Document{d}, ImportOptions{Apply: true, Actor: actor, Note: note, KeepManager: true})
	if err != nil {
		return DefinitionChange{}, err
	}
	return changes[0], nil
}
