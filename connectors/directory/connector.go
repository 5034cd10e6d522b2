package directory

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/scouts"
)

// Options configure a Connector.
type Options struct {
	ScoutID string
	Config  Config
	Index   Index
	Logger  *slog.Logger
	// Now is the clock for age comparisons (settling, the baseline);
	// default time.Now.
	Now func() time.Time
	// ScoutCreatedAt is when the user created the scout: during the
	// baseline, files modified at or after it are new all the same. The
	// zero time makes the baseline record every existing file silently.
	ScoutCreatedAt time.Time
	// Protected lists folders the scout never reads (the agent's data and
	// configuration folders): a root inside one is refused, and one inside
	// the root is skipped with all it holds.
	Protected []string
	// Watches is the agent's one file watcher, shared by every folder it
	// watches; nil: each Watch call opens a watcher of its own.
	Watches *watchhub.Hub
	// OnWatchLimit, when set, hears once per Watch call that a limit of the
	// system keeps part or all of the folder from being watched live (a
	// *watchhub.LimitError naming the sysctl to raise; the scout relies on
	// its periodic rescans), and nil once the whole tree is watched, or
	// when a Watch that met a limit ends with the scout.
	OnWatchLimit func(err error)
}

// Connector is a folder scout's source: it implements
// scouts.SourceConnector.
type Connector struct {
	scoutID   string
	cfg       Config
	include   globSet
	exclude   globSet
	idx       Index
	log       *slog.Logger
	now       func() time.Time
	createdAt time.Time
	settle    time.Duration
	protected []string
	// watches and onWatchLimit are Options.Watches and OnWatchLimit.
	watches      *watchhub.Hub
	onWatchLimit func(err error)
	// system are the well-known system folders (/proc, /sys, /dev), never
	// descended into where they are mounted inside the tree.
	system []protectedDir

	// rootp confines every file operation to the watched tree, also under
	// a race where a directory is swapped for a symbolic link. It changes
	// when the folder at rootPath is replaced (see checkRoot).
	rootp    atomic.Pointer[os.Root]
	rootPath string
	// rootReal is rootPath with its symbolic links resolved, so that a link
	// whose target spells the resolved path still counts as inside.
	rootReal string

	// scanMu serialises scans: each reads the index and updates it as it
	// goes, pages included.
	scanMu sync.Mutex

	// mu guards the work the watcher hands to scans.
	mu          sync.Mutex
	full        bool                // a full rescan is due
	dirty       map[string]struct{} // directories to rescan
	notify      func()              // set while Watch runs
	watching    bool                // Watch has the root under watch
	settleTimer *time.Timer
	closed      bool

	hooks hooks
}

// hooks let tests provoke races that are otherwise hard to reproduce.
type hooks struct {
	// beforeOpen runs between listing a file and opening it.
	beforeOpen func(rel string)
	// open replaces the opening of a file in its directory.
	open func(dir *os.Root, name string) (*os.File, error)
	// addWatch runs before a directory below the root is watched; an
	// error stands for the watch failing (the inotify limit).
	addWatch func(rel string) error
	// settleDelay sees the delay before each rescan of files left for
	// later.
	settleDelay func(d time.Duration)
}

var _ scouts.SourceConnector = (*Connector)(nil)

// New returns the connector of one folder scout. It validates the
// configuration and opens the root; a root that has gone (an unmounted
// drive) is an error the engine shows as the scout's health.
func New(opts Options) (*Connector, error) {
	if opts.Index == nil {
		return nil, errors.New("directory: New: Index is required")
	}
	return open(opts)
}

// open is New without an index, for walks that record nothing.
func open(opts Options) (*Connector, error) {
	cfg := opts.Config
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := CheckRoot(cfg.Path, opts.Protected); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	include, err := compileGlobs(cfg.Include)
	if err != nil {
		return nil, invalid("include: %v", err)
	}
	exclude, err := compileGlobs(append(append([]string{}, DefaultExcludes...), cfg.Exclude...))
	if err != nil {
		return nil, invalid("exclude: %v", err)
	}
	root, err := os.OpenRoot(cfg.Path)
	if err != nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "folder %s cannot be opened: %v", cfg.Path, err)
	}
	resolved, err := filepath.EvalSymlinks(cfg.Path)
	if err != nil {
		resolved = ""
	}
	c := &Connector{
		scoutID:      opts.ScoutID,
		cfg:          cfg,
		include:      include,
		exclude:      exclude,
		idx:          opts.Index,
		log:          opts.Logger,
		now:          opts.Now,
		createdAt:    opts.ScoutCreatedAt,
		settle:       time.Duration(cfg.Settle),
		protected:    opts.Protected,
		watches:      opts.Watches,
		onWatchLimit: opts.OnWatchLimit,
		system:       systemFolders(),
		rootPath:     cfg.Path,
		rootReal:     resolved,
		// The first scan is always full: it finds what arrived while the
		// agent was not running.
		full:  true,
		dirty: map[string]struct{}{},
	}
	c.rootp.Store(root)
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.log = c.log.With("scout", opts.ScoutID, "folder", cfg.Path)
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// Close releases the root and stops pending timers.
func (c *Connector) Close() error {
	c.mu.Lock()
	c.closed = true
	if c.settleTimer != nil {
		c.settleTimer.Stop()
	}
	c.mu.Unlock()
	if err := c.root().Close(); err != nil {
		return fmt.Errorf("directory: close: %w", err)
	}
	return nil
}

// root is the open handle of the watched folder.
func (c *Connector) root() *os.Root { return c.rootp.Load() }

// checkRoot makes sure the root handle still refers to the folder at the
// configured path. A folder that was moved away keeps its handle working,
// so without this check scans would carry on in its new place; a folder
// deleted and re-created is followed to its new self, which is what the
// configured path names. It reports whether the root changed.
func (c *Connector) checkRoot() (bool, error) {
	fi, err := os.Stat(c.rootPath)
	switch {
	case err != nil:
		return false, scouts.Errorf(scouts.EUnavailable, "folder %s is not available: %s", c.rootPath, errText(err))
	case !fi.IsDir():
		return false, scouts.Errorf(scouts.EUnavailable, "%s is no longer a folder", c.rootPath)
	}
	if cur, err := c.root().Stat("."); err == nil && os.SameFile(fi, cur) {
		return false, nil
	}
	r, err := os.OpenRoot(c.rootPath)
	if err != nil {
		return false, scouts.Errorf(scouts.EUnavailable, "folder %s is not available: %s", c.rootPath, errText(err))
	}
	// Calls in flight on the old handle finish first (os.Root counts
	// them) or fail and are retried.
	c.rootp.Swap(r).Close()
	c.log.Info("the watched folder was replaced; following its path")
	return true, nil
}

// markDirty asks the next scan to look at directory rel.
func (c *Connector) markDirty(rel string) {
	c.mu.Lock()
	c.dirty[rel] = struct{}{}
	c.mu.Unlock()
}

// markFull asks the next scan to look at the whole tree.
func (c *Connector) markFull() {
	c.mu.Lock()
	c.full = true
	c.mu.Unlock()
}

// takeWork returns what the next scan must look at and clears it: either
// the whole tree or the dirty directories.
func (c *Connector) takeWork() (full bool, dirty []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Without a watch nothing marks directories dirty: every scan is full.
	full = c.full || !c.watching
	c.full = false
	if !full {
		dirty = make([]string, 0, len(c.dirty))
		for d := range c.dirty {
			dirty = append(dirty, d)
		}
	}
	clear(c.dirty)
	return full, dirty
}

// scheduleSettle asks for a scan at the instant the files left for later
// have settled (at, on the connector's clock), so that the file's own age
// decides, not when its event arrived. Without a running Watch the engine's
// polling finds them instead.
func (c *Connector) scheduleSettle(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	d := max(at.Sub(c.now()), 0) + settleSlack
	if c.hooks.settleDelay != nil {
		c.hooks.settleDelay(d)
	}
	if c.settleTimer != nil {
		c.settleTimer.Reset(d)
		return
	}
	c.settleTimer = time.AfterFunc(d, c.callNotify)
}

// settleSlack is how long a rescan waits past the instant a file settles:
// clocks read at millisecond precision (the agent's) must see it settled
// too, or the file would be left for later once more.
const settleSlack = 2 * time.Millisecond

// callNotify tells the engine that a scan may find something.
func (c *Connector) callNotify() {
	c.mu.Lock()
	n := c.notify
	c.mu.Unlock()
	if n != nil {
		n()
	}
}

// excluded reports whether the entry at rel is out of scope, checking its
// own name only (its parents were checked on the way down).
func (c *Connector) excluded(rel string, isDir bool) bool {
	return c.exclude.any(rel, isDir)
}

// excludedPath reports whether rel or any directory above it is excluded,
// for paths that come from events and refs rather than from a walk.
func (c *Connector) excludedPath(rel string, isDir bool) bool {
	if rel == "" {
		return false
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && c.exclude.any(rel[:i], true) {
			return true
		}
	}
	return c.exclude.any(rel, isDir)
}

// included reports whether a file at rel is one the scout reports.
func (c *Connector) included(rel string) bool {
	return len(c.include) == 0 || c.include.any(rel, false)
}

// abs returns the absolute OS path of rel.
func (c *Connector) abs(rel string) string {
	if rel == "" {
		return c.rootPath
	}
	return filepath.Join(c.rootPath, filepath.FromSlash(rel))
}

// osRel converts rel to an OS path relative to the root ("." for the root).
func osRel(rel string) string {
	if rel == "" {
		return "."
	}
	return filepath.FromSlash(rel)
}
