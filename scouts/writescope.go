package scouts

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// WriteScope is where a scout's actions may write (docs/definitions.md,
// "Write scope"): the folders file.move may move its files into, the Gmail
// labels gmail.label may add to its mail, the hosts webhook.post may post
// its cards to. It is an allow-list checked on top of every other check of
// an action, when the action is planned and again when it runs, on the
// value the action would use (a rule's template rendered, a folder's links
// resolved).
//
// A nil field is the default for that field (DefaultWriteScope), which is
// narrow; an empty, non-nil one allows nothing.
type WriteScope struct {
	// Folders are globs of folders: absolute or ~/…, one path.Match
	// pattern per segment, "**" a whole segment matching any number of
	// folders (~/Sorted/** is ~/Sorted and every folder below it).
	Folders []string
	// Labels are globs of Gmail label names, "/" separating nested labels
	// as in Gmail (Receipts/** is Receipts and every label below it);
	// compared without regard to case, as Gmail names labels.
	Labels []string
	// Hosts are host names or IP addresses, without scheme or port;
	// "*.example.com" is any name below example.com (not example.com).
	Hosts []string
}

// Defaults of a scout's write scope, for a field its definition leaves
// out. They are narrow on purpose: a scout moves files into one folder
// tree, ~/Sorted, outside every folder a scout watches by default (a
// file moved into the watched folder would come back as a new card); it
// adds labels under Scouts; it posts to this machine only.
var (
	defaultFolders = []string{"~/Sorted/**"}
	defaultLabels  = []string{"Scouts/**"}
	defaultHosts   = []string{"localhost", "127.0.0.1", "::1"}
)

// Scope limits: how many globs each list holds, and how long one is.
const (
	MaxScopeEntries = 100
	maxScopeEntry   = 4096
)

// ScopeField names a field of a write scope.
type ScopeField string

const (
	ScopeFolders ScopeField = "folders"
	ScopeLabels  ScopeField = "labels"
	ScopeHosts   ScopeField = "hosts"
)

// Effective returns the list that applies for field — the scout's own, or
// the default — and whether it is the default.
func (w WriteScope) Effective(field ScopeField) (list []string, isDefault bool) {
	var own, def []string
	switch field {
	case ScopeFolders:
		own, def = w.Folders, defaultFolders
	case ScopeLabels:
		own, def = w.Labels, defaultLabels
	case ScopeHosts:
		own, def = w.Hosts, defaultHosts
	}
	if own == nil {
		return append([]string(nil), def...), true
	}
	return append([]string{}, own...), false
}

// IsZero reports whether every field is the default.
func (w WriteScope) IsZero() bool { return w.Folders == nil && w.Labels == nil && w.Hosts == nil }

// Validate checks each glob's syntax: a folder glob is absolute or ~/… and
// has no ".." segment (it names folders directly, as a destination must);
// a label glob is a label name; a host is a bare host name or address.
func (w WriteScope) Validate() error {
	for _, f := range []struct {
		field ScopeField
		list  []string
		check func(string) error
	}{{ScopeFolders, w.Folders, checkFolderGlob}, {ScopeLabels, w.Labels, checkLabelGlob}, {ScopeHosts, w.Hosts, checkHost}} {
		if len(f.list) > MaxScopeEntries {
			return Errorf(EInvalid, "write_scope.%s: %d entries, at most %d", f.field, len(f.list), MaxScopeEntries)
		}
		for i, g := range f.list {
			if strings.TrimSpace(g) == "" || len(g) > maxScopeEntry {
				return Errorf(EInvalid, "write_scope.%s[%d]: empty or longer than %d bytes", f.field, i, maxScopeEntry)
			}
			if err := f.check(g); err != nil {
				return Errorf(EInvalid, "write_scope.%s[%d]: %q %v", f.field, i, g, err)
			}
		}
	}
	return nil
}

func checkFolderGlob(g string) error {
	if g != "~" && !strings.HasPrefix(g, "~/") && !path.IsAbs(filepath.ToSlash(g)) {
		return fmt.Errorf("is not an absolute folder (or ~/…)")
	}
	return checkSegments(strings.Split(strings.TrimPrefix(filepath.ToSlash(g), "~"), "/"))
}

func checkLabelGlob(g string) error {
	return checkSegments(strings.Split(g, "/"))
}

func checkSegments(segs []string) error {
	for _, s := range segs {
		switch {
		case s == "..":
			return fmt.Errorf("has a \"..\" segment: a scope names its folders directly")
		case s != "**" && strings.Contains(s, "**"):
			return fmt.Errorf("has ** inside a segment: ** stands alone between slashes")
		}
		if _, err := path.Match(s, ""); err != nil {
			return fmt.Errorf("is not a valid glob: %v", err)
		}
	}
	return nil
}

func checkHost(h string) error {
	name := strings.TrimPrefix(h, "*.")
	if name == "" {
		return fmt.Errorf("names no host")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':') {
			return fmt.Errorf("is not a host name or address (write it without scheme, port or path: hooks.example.com, *.example.com)")
		}
	}
	return nil
}

// MatchFolder reports whether the folder dir (absolute, clean, named by
// its real path) matches one of globs, ~ standing for home. A glob whose
// fixed part is a link is not followed: dir is compared as it is named.
func MatchFolder(globs []string, home, dir string) bool {
	for _, g := range globs {
		g = filepath.ToSlash(g)
		if rest, ok := strings.CutPrefix(g, "~"); ok {
			if home == "" {
				continue
			}
			g = filepath.ToSlash(home) + rest
		}
		if matchSegments(splitPath(g), splitPath(filepath.ToSlash(filepath.Clean(dir))), false) {
			return true
		}
	}
	return false
}

// MatchLabel reports whether a Gmail label name matches one of globs.
func MatchLabel(globs []string, label string) bool {
	for _, g := range globs {
		if matchSegments(strings.Split(g, "/"), strings.Split(label, "/"), true) {
			return true
		}
	}
	return false
}

// MatchHost reports whether a host (as a URL names it, without port)
// matches one of hosts.
func MatchHost(hosts []string, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		if sub, ok := strings.CutPrefix(h, "*."); ok {
			if strings.HasSuffix(host, "."+sub) {
				return true
			}
			continue
		}
		if h == host {
			return true
		}
	}
	return false
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(path.Clean(p), "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// matchSegments matches names against a glob's segments, "**" matching
// any number of them (none included).
func matchSegments(glob, names []string, fold bool) bool {
	if len(glob) == 0 {
		return len(names) == 0
	}
	if glob[0] == "**" {
		for i := 0; i <= len(names); i++ {
			if matchSegments(glob[1:], names[i:], fold) {
				return true
			}
		}
		return false
	}
	if len(names) == 0 {
		return false
	}
	g, n := glob[0], names[0]
	if fold {
		g, n = strings.ToLower(g), strings.ToLower(n)
	}
	if ok, err := path.Match(g, n); err != nil || !ok {
		return false
	}
	return matchSegments(glob[1:], names[1:], fold)
}

// ScopeWords says a scope's list in an error: "[~/Sorted/**] (the
// default)", "[] (nothing)".
func ScopeWords(list []string, isDefault bool) string {
	s := "[" + strings.Join(list, ", ") + "]"
	switch {
	case isDefault:
		s += " (the default)"
	case len(list) == 0:
		s += " (nothing)"
	}
	return s
}
