package scouts

import (
	"path"
	"path/filepath"
	"strings"
)

// FolderScopeReaches reports whether a folder one of globs allows (a
// write scope's folders, ~ standing for home) may lie inside the tree
// rooted at dir — that is, whether a file moved there could be seen by a
// scout watching dir. It answers for any folder the glob could name,
// existing or not, so that the graph of scouts (scouts/graph) sees the
// overlap before a file ever moves.
func FolderScopeReaches(globs []string, home, dir string) bool {
	root := splitPath(filepath.ToSlash(filepath.Clean(dir)))
	for _, g := range globs {
		g = filepath.ToSlash(g)
		if rest, ok := strings.CutPrefix(g, "~"); ok {
			if home == "" {
				continue
			}
			g = filepath.ToSlash(home) + rest
		}
		if reachesBelow(splitPath(g), root) {
			return true
		}
	}
	return false
}

// reachesBelow reports whether a glob's segments can match a folder whose
// path starts with root (root itself or one below it).
func reachesBelow(glob, root []string) bool {
	switch {
	case len(root) == 0:
		return true // what is left of the glob names folders inside root
	case len(glob) == 0:
		return false // the glob stops above root
	case glob[0] == "**":
		return reachesBelow(glob[1:], root) || reachesBelow(glob, root[1:])
	}
	ok, err := path.Match(glob[0], root[0])
	return err == nil && ok && reachesBelow(glob[1:], root[1:])
}
