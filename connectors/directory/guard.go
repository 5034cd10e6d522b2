package directory

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Folders no scout reads. Scouts' own data directory holds its database,
// its lock and the local API's bearer token: a scout that read it would
// suggest them (the token as a card's title) and feed on its own writes
// forever. A root inside such a folder is refused; a root that contains one
// skips it, never watching or listing anything below it.

// protectedDir is a folder no scout reads, as it was when last looked at.
type protectedDir struct {
	path string
	info fs.FileInfo
}

// guard recognises the protected folders during one scan or one pass of
// the watcher.
type guard struct {
	paths []string
	dirs  []protectedDir // those of paths that existed when last looked at
}

func newGuard(paths []string) *guard {
	g := &guard{paths: paths}
	g.refresh()
	return g
}

// refresh looks at the protected folders now.
func (g *guard) refresh() {
	g.dirs = statProtected(g.paths)
}

// statProtected returns those of paths that are folders now.
func statProtected(paths []string) []protectedDir {
	out := make([]protectedDir, 0, len(paths))
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, protectedDir{path: p, info: fi})
		}
	}
	return out
}

// protects reports whether the folder named name, described by info (its
// Lstat), is a protected one. It compares files, not names, so that any
// spelling of the folder (through a link, a bind mount, another case) is
// recognised. A protected folder that did not exist when the guard looked
// (the definitions folder, made after the scout started) is looked for
// again when a folder of its name turns up.
func (g *guard) protects(name string, info fs.FileInfo) bool {
	if len(g.paths) == 0 {
		return false
	}
	if _, ok := protectedAs(info, g.dirs); ok {
		return true
	}
	if len(g.dirs) == len(g.paths) {
		return false
	}
	for _, p := range g.paths {
		if strings.EqualFold(filepath.Base(p), name) {
			g.refresh()
			_, ok := protectedAs(info, g.dirs)
			return ok
		}
	}
	return false
}

// protectedAs returns the protected folder that info is, if any.
func protectedAs(info fs.FileInfo, prot []protectedDir) (string, bool) {
	for _, d := range prot {
		if os.SameFile(info, d.info) {
			return d.path, true
		}
	}
	return "", false
}

// CheckRoot refuses a folder no scout may watch: the filesystem's root, a
// system pseudo-filesystem (/proc, /sys, /dev and the like) or a folder in
// one, and a folder that is, or is inside, one of protected (the agent's
// data and configuration folders). Errors are *scouts.Error with code
// EInvalid.
func CheckRoot(root string, protected []string) error {
	root = filepath.Clean(root)
	if isFSRoot(root) {
		return invalid("%s is the root of the filesystem: a scout there would read every file on the computer, system files included; choose a folder of documents instead", root)
	}
	if kind, ok := systemFolder(root); ok {
		return invalid("%s is a system folder (%s), which holds no documents; choose another folder", root, kind)
	}
	if d, ok := InsideProtected(root, protected); ok {
		return invalid("folder %s is inside %s, where Scouts keeps its own data (its database and keys); choose a folder outside it", root, d)
	}
	return nil
}

// isFSRoot reports whether root, or what it links to, is the root of a
// filesystem tree ("/", or a volume such as C:\ on Windows).
func isFSRoot(root string) bool {
	if filepath.Dir(root) == root {
		return true
	}
	real, err := filepath.EvalSymlinks(root)
	return err == nil && filepath.Dir(real) == real
}

// systemFolderPaths are the mount points of the system's pseudo-filesystems,
// for platforms (and filesystems, such as devtmpfs) where statfs does not
// tell them apart.
var systemFolderPaths = []string{"/proc", "/sys", "/dev"}

// systemFolders looks at systemFolderPaths now.
func systemFolders() []protectedDir {
	if filepath.Separator != '/' {
		return nil
	}
	return statProtected(systemFolderPaths)
}

// systemFolder reports whether root is on a pseudo-filesystem or inside a
// well-known system folder, and which.
func systemFolder(root string) (string, bool) {
	if kind, ok := pseudoFS(root); ok {
		return kind, true
	}
	sys := systemFolders()
	for _, a := range ancestors(root) {
		if fi, err := os.Stat(a); err == nil {
			if d, ok := protectedAs(fi, sys); ok {
				return d, true
			}
		}
	}
	return "", false
}

// systemMount reports whether the folder at rel, described by info (its
// Lstat), is the mount point of a pseudo-filesystem, given the device of
// the folder holding it. Only mount points are asked about, so a tree on a
// network filesystem costs no statfs per folder.
func (c *Connector) systemMount(rel string, info fs.FileInfo, parentDev uint64) bool {
	dev, ok := devOf(info)
	if !ok || dev == parentDev {
		return false
	}
	kind, ok := pseudoFS(c.abs(rel))
	if !ok {
		kind, ok = protectedAs(info, c.system)
	}
	if ok {
		c.log.Debug("not descending into a system pseudo-filesystem", "dir", c.display(rel), "kind", kind)
	}
	return ok
}

// InsideProtected reports the protected folder that root is or is inside,
// by any spelling (through links, as compared files). Folder scouts refuse
// such a folder as their root; file.move refuses it as a destination.
func InsideProtected(root string, protected []string) (string, bool) {
	prot := statProtected(protected)
	for _, a := range ancestors(root) {
		if fi, err := os.Stat(a); err == nil {
			if d, ok := protectedAs(fi, prot); ok {
				return d, true
			}
		}
		// A protected folder that does not exist yet is compared by name.
		for _, p := range protected {
			if a == filepath.Clean(p) {
				return p, true
			}
		}
	}
	return "", false
}

// ancestors returns root and every folder above it, both as spelled and
// with symbolic links resolved (a link's parent is not its target's).
func ancestors(root string) []string {
	var out []string
	add := func(p string) {
		for {
			out = append(out, p)
			up := filepath.Dir(p)
			if up == p {
				return
			}
			p = up
		}
	}
	root = filepath.Clean(root)
	add(root)
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		add(real)
	}
	return out
}
