package directory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Scan tuning: small enough to keep memory flat, large enough to keep
// SQLite transactions and engine pages efficient.
const (
	pageSize     = 256  // items per engine page
	readDirChunk = 512  // directory entries read at a time
	maxBatch     = 2048 // index changes held before they are flushed
)

const cursorBaseline = "baseline"

// errChanged reports an entry that changed between listing and opening
// (swapped for another file or a link); the scan leaves it for later.
var errChanged = errors.New("changed while being read")

// dirWork is a directory a scan must list.
type dirWork struct {
	rel string
	// recursive descends into every subdirectory, not only new ones.
	recursive bool
	// info is the directory as its parent listed it, to check that what
	// is opened is the same directory; nil when it was not listed.
	info fs.FileInfo
}

// scan is one ListNew run.
type scan struct {
	c        *Connector
	ctx      context.Context
	page     func(context.Context, []scouts.ItemRef) error
	now      time.Time
	baseline bool
	// protected recognises the folders this scan skips (see guard.go).
	protected *guard
	// rootDev is the device of the root, to find mount points below it.
	rootDev uint64
	// listed and subtrees hold the directories an incremental scan has
	// listed, and the new ones it listed with all they contain, so that no
	// directory is listed twice in one run.
	listed   map[string]bool
	subtrees map[string]bool

	items []scouts.ItemRef
	batch IndexBatch
	// wakeAt is when the earliest entry left for later may be ready; zero
	// when nothing was left.
	wakeAt time.Time

	head []byte // first bytes of the file being read; allocated on first use
	buf  []byte // hashing buffer; allocated on first use
}

// ListNew reports new and changed files a page at a time; see the package
// documentation. The index advances past a page only once page returns nil.
func (c *Connector) ListNew(ctx context.Context, page func(context.Context, []scouts.ItemRef) error) (err error) {
	c.scanMu.Lock()
	defer c.scanMu.Unlock()
	replaced, err := c.checkRoot()
	if err != nil {
		return err
	}
	if replaced {
		c.markFull()
	}
	full, dirty := c.takeWork()
	defer func() {
		if err != nil {
			// What this run took off the dirty set is unaccounted for.
			c.markFull()
		}
	}()
	baselined, err := c.idx.Cursor(ctx, cursorBaseline)
	if err != nil {
		return fmt.Errorf("directory: read baseline cursor: %w", err)
	}
	needBaseline := !c.cfg.IncludeExisting && baselined != "done"
	if needBaseline {
		full = true
	}
	s := &scan{c: c, ctx: ctx, page: page, now: c.now(), baseline: needBaseline, protected: newGuard(c.protected)}
	if fi, err := c.root().Stat("."); err == nil {
		s.rootDev, _ = devOf(fi)
	}
	if full {
		err = s.walk([]dirWork{{rel: "", recursive: true}})
	} else {
		err = s.incremental(dirty)
	}
	if err == nil {
		err = s.flush()
	}
	if !s.wakeAt.IsZero() {
		c.scheduleSettle(s.wakeAt)
	}
	if err != nil {
		return err
	}
	if needBaseline {
		if err := c.idx.SetCursor(ctx, cursorBaseline, "done"); err != nil {
			return fmt.Errorf("directory: record baseline: %w", err)
		}
	}
	return nil
}

// dirDev is the device of the directory w lists.
func (s *scan) dirDev(w dirWork) uint64 {
	if w.info != nil {
		if d, ok := devOf(w.info); ok {
			return d
		}
	}
	return s.rootDev
}

// incremental lists the dirty directories, parents first.
func (s *scan) incremental(dirty []string) error {
	slices.Sort(dirty)
	s.listed, s.subtrees = map[string]bool{}, map[string]bool{}
	for _, d := range dirty {
		if s.covered(d) || s.c.excludedPath(d, true) {
			continue
		}
		// A dirty directory that has gone, or is no longer a directory, is
		// dealt with by listing the nearest directory above it that exists.
		for {
			fi, err := s.c.lstatChain(d)
			if err == nil && fi.IsDir() {
				if err := s.walk([]dirWork{{rel: d, info: fi}}); err != nil {
					return err
				}
				break
			}
			if d == "" {
				return fmt.Errorf("directory: the watched folder %s cannot be read: %w", s.c.rootPath, err)
			}
			d, _ = splitRel(d)
			if s.listed[d] {
				break
			}
		}
	}
	return nil
}

// covered reports whether an incremental scan has listed d already, itself
// or as part of a new subtree.
func (s *scan) covered(d string) bool {
	if s.listed[d] {
		return true
	}
	for p := d; ; p, _ = splitRel(p) {
		if s.subtrees[p] {
			return true
		}
		if p == "" {
			return false
		}
	}
}

// walk lists directories depth first with an explicit stack, so memory
// holds the pending directories along one path, never the whole tree.
func (s *scan) walk(stack []dirWork) error {
	for len(stack) > 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.listed != nil {
			if s.listed[w.rel] || (!w.recursive && s.covered(w.rel)) {
				continue
			}
			s.listed[w.rel] = true
			if w.recursive {
				s.subtrees[w.rel] = true
			}
		}
		var err error
		stack, err = s.listDir(w, stack)
		if err != nil {
			return err
		}
	}
	return nil
}

// listDir compares one directory with its index entries and pushes the
// subdirectories to descend into.
func (s *scan) listDir(w dirWork, stack []dirWork) ([]dirWork, error) {
	c := s.c
	dir, err := c.openDir(w.rel, w.info)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errChanged):
		// Gone or replaced since its parent was listed: the parent's next
		// listing records what is there now.
		parent, _ := splitRel(w.rel)
		s.later(parent)
		return stack, nil
	case errors.Is(err, fs.ErrPermission) && w.rel != "" && w.info != nil:
		s.problem(w.rel, w.info, fmt.Sprintf("Folder %s cannot be read: permission denied; its files are not watched", c.display(w.rel)))
		return stack, s.maybeFlush()
	case err != nil:
		return stack, fmt.Errorf("directory: open %s: %w", c.display(w.rel), err)
	}
	defer dir.Close()
	f, err := dir.Open(".")
	if err != nil {
		return stack, fmt.Errorf("directory: list %s: %w", c.display(w.rel), err)
	}
	defer f.Close()
	known, err := c.idx.LoadDir(s.ctx, w.rel)
	if err != nil {
		return stack, fmt.Errorf("directory: load index of %s: %w", c.display(w.rel), err)
	}
	for {
		ents, rerr := f.ReadDir(readDirChunk)
		for _, de := range ents {
			info, err := de.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // gone between the listing and its lstat
			}
			if err != nil {
				return stack, fmt.Errorf("directory: lstat %s: %w", c.display(joinRel(w.rel, de.Name())), err)
			}
			stack = s.entry(w, dir, info, known, stack)
			if err := s.maybeFlush(); err != nil {
				return stack, err
			}
		}
		if errors.Is(rerr, io.EOF) || (rerr == nil && len(ents) == 0) {
			break
		}
		if rerr != nil {
			return stack, fmt.Errorf("directory: list %s: %w", c.display(w.rel), rerr)
		}
	}
	// What the index knows and the listing did not show has gone.
	for name, old := range known {
		s.gone(w.rel, name, old)
	}
	return stack, s.maybeFlush()
}

// openDir opens directory rel as a root of its own, so that files in it are
// opened by name relative to it, and checks it is the directory its parent
// listed (not a link swapped in since).
func (c *Connector) openDir(rel string, want fs.FileInfo) (*os.Root, error) {
	dir, err := c.root().OpenRoot(osRel(rel))
	if err != nil {
		return nil, err
	}
	if want != nil {
		got, err := dir.Stat(".")
		if err != nil || !os.SameFile(want, got) {
			dir.Close()
			if err != nil {
				return nil, err
			}
			return nil, errChanged
		}
	}
	return dir, nil
}

// lstatChain lstats rel after checking that no directory on the way to it
// is a symbolic link: paths from events and refs must not lead through one.
func (c *Connector) lstatChain(rel string) (fs.FileInfo, error) {
	if rel == "" {
		return c.root().Stat(".")
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		fi, err := c.root().Lstat(osRel(rel[:i]))
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, &fs.PathError{Op: "lstat", Path: rel, Err: errThroughLink}
		}
	}
	return c.root().Lstat(osRel(rel))
}

var errThroughLink = errors.New("a folder on the way is a symbolic link or a file")

// display is the absolute path of rel, fit to show.
func (c *Connector) display(rel string) string {
	return displayString(c.abs(rel))
}

// displayDir is the absolute path of the directory holding rel.
func (c *Connector) displayDir(rel string) string {
	d, _ := splitRel(rel)
	return c.display(d)
}
