package defsync

import (
	"context"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// scoutNamed is the scout a definitions file without an id names, as an
// import matches it: by name and kind. It is the first such scout no
// other file of the folder manages (id; "" when there is none: the file
// makes one); when every one is another present file's, owner is that
// file ("file:NAME") and id its scout, and the file is refused. Taking
// over a scout another file manages made it switch between the two files
// at every reconcile, each switch a version nobody made.
func (s *Service) scoutNamed(ctx context.Context, d definition.Document, states map[string]localdb.ScoutDefinitionState, present map[string]bool) (id, owner string, err error) {
	list, err := s.cfg.Store.ListScouts(ctx)
	if err != nil {
		return "", "", err
	}
	for _, sc := range list {
		if sc.Name != d.Name || string(sc.Kind) != d.Kind {
			continue
		}
		by := states[sc.ID].ManagedBy
		if by == "" || !present[by] {
			return sc.ID, "", nil // free, or its file is gone: this one is that file renamed
		}
		if owner == "" {
			id, owner = sc.ID, by
		}
	}
	return id, owner, nil
}

// alreadyManaged is the folder's problem with file, which defines scout
// id that another file (owner, "file:NAME") manages.
func alreadyManaged(file, id, owner string, d definition.Document) definition.Error {
	return definition.Error{File: file, Line: 1,
		Reason: fmt.Sprintf("scout %s (%s %q) is already managed by %s: one file per scout (remove one, or give this one another name)",
			id, d.Kind, d.Name, strings.TrimPrefix(owner, "file:"))}
}

// cmpBool orders true before false.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
