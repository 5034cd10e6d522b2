package directory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/scouts"
)

// countingIndex counts the directories a scan loads from the real index,
// to show that an incremental scan lists only dirty directories.
type countingIndex struct {
	directory.Index
	loads atomic.Int64
}

func (x *countingIndex) LoadDir(ctx context.Context, dir string) (map[string]directory.Entry, error) {
	x.loads.Add(1)
	return x.Index.LoadDir(ctx, dir)
}

func TestWatchNotifiesAndScansDirtyDirectories(t *testing.T) {
	e := newEnv(t)
	for _, d := range []string{"a", "b", "c/d"} {
		e.write(d+"/old.md", "# old\n")
	}
	cfg := e.cfg()
	cfg.Settle = directory.Duration(20 * time.Millisecond)
	idx := &countingIndex{Index: e.index()}
	c := e.openWith(cfg, idx)
	n := watch(t, c)
	if got := list(t, c); len(got) != 3 {
		t.Fatalf("first scan: %v", paths(t, got))
	}

	e.write("a/new.md", "# New in a\n")
	n.wait(t, "a file was created")
	idx.loads.Store(0)
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"a/new.md"}) {
		t.Fatalf("after the event: %v; want a/new.md", got)
	}
	if l := idx.loads.Load(); l != 1 {
		t.Errorf("incremental scan loaded %d directories; want 1 (only the dirty one)", l)
	}

	// A file created in a new subdirectory, and one created in it a moment
	// later (after its watch was added) are both found.
	e.write("b/fresh/deeper/x.md", "# X\n")
	n.wait(t, "a folder was created")
	got := list(t, c)
	e.write("b/fresh/deeper/y.md", "# Y\n")
	n.wait(t, "a file was created in the new folder")
	got = append(got, list(t, c)...)
	if p := paths(t, got); !slices.Equal(p, []string{"b/fresh/deeper/x.md", "b/fresh/deeper/y.md"}) {
		t.Errorf("found %v; want both files in the new folder", p)
	}

	// Hidden and temporary files make no noise.
	e.write("c/.draft.md.swp", "x")
	e.write("c/d/e.md", "# E\n")
	n.wait(t, "a file was created deeper")
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"c/d/e.md"}) {
		t.Errorf("found %v; want c/d/e.md", got)
	}

	// A removed folder is forgotten.
	os.RemoveAll(filepath.Join(e.root, "b"))
	n.wait(t, "a folder was removed")
	if got := list(t, c); len(got) != 0 {
		t.Errorf("after removing a folder: %v", paths(t, got))
	}
	if m, _ := e.index().LoadDir(context.Background(), "b/fresh/deeper"); len(m) != 0 {
		t.Errorf("removed folder still indexed: %v", m)
	}
}

func TestWatchDebouncesBursts(t *testing.T) {
	watchtest.Need(t)
	e := newEnv(t)
	cfg := e.cfg()
	cfg.Settle = directory.Duration(200 * time.Millisecond)
	c := e.open(cfg)
	var count atomic.Int64
	fired := make(chan struct{}, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- c.Watch(ctx, func() { count.Add(1); fired <- struct{}{} })
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	select {
	case <-fired: // Watch is ready
	case <-time.After(deadline):
		t.Fatal("Watch did not start")
	}
	count.Store(0)
	wait := func(what string) {
		t.Helper()
		select {
		case <-fired:
		case <-time.After(deadline):
			t.Fatalf("no notify after %s", what)
		}
	}
	for i := range 50 {
		e.write(fmt.Sprintf("burst/f%02d.md", i), "x")
	}
	wait("a burst of 50 files")
	// One more event, notified after every event of the burst was handled.
	e.write("sentinel.md", "x")
	for count.Load() < 2 {
		wait("one more file")
	}
	if c := count.Load(); c > 3 {
		t.Errorf("a burst of 50 files and one more file gave %d notifies; want the burst debounced into one", c)
	}
}

func TestWatchRescanTickerForcesFullScan(t *testing.T) {
	e := newEnv(t)
	e.write("a/x.md", "x")
	e.write("b/y.md", "y")
	cfg := e.cfg()
	cfg.RescanInterval = directory.Duration(time.Second)
	idx := &countingIndex{Index: e.index()}
	c := e.openWith(cfg, idx)
	n := watch(t, c)
	list(t, c)
	if got := list(t, c); len(got) != 0 {
		t.Fatalf("second scan found %v", paths(t, got))
	}
	idx.loads.Store(0)
	if list(t, c); idx.loads.Load() != 0 {
		t.Fatalf("a scan with nothing dirty loaded %d directories", idx.loads.Load())
	}
	n.drain()
	n.wait(t, "a rescan interval passed with no file events")
	list(t, c)
	if l := idx.loads.Load(); l != 3 {
		t.Errorf("scan after the rescan tick loaded %d directories; want all 3", l)
	}
}

func TestWatchMissingRoot(t *testing.T) {
	e := newEnv(t)
	c := e.open(e.cfg())
	os.Remove(e.root)
	err := c.Watch(context.Background(), func() {})
	if err == nil {
		t.Fatal("Watch on a removed root returned nil; want an error so the engine polls")
	}
}

func TestWatchLimitFallsBackToRescans(t *testing.T) {
	e := newEnv(t)
	e.write("sub/old.md", "# old\n")
	cfg := e.cfg()
	cfg.RescanInterval = directory.Duration(time.Second)
	c := e.open(cfg)
	directory.SetAddWatch(c, func(rel string) error {
		if rel == "sub" {
			return syscall.ENOSPC // inotify watch limit reached
		}
		return nil
	})
	n := watch(t, c) // no error: the root is watched
	list(t, c)
	// No event comes from sub; the periodic rescan finds the file.
	e.write("sub/new.md", "# new\n")
	n.wait(t, "a rescan interval passed")
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"sub/new.md"}) {
		t.Errorf("found %v; want sub/new.md from the rescan", got)
	}
	// The root is still watched.
	e.write("top.md", "# top\n")
	n.wait(t, "a file was created in the root")
}

func TestRootMovedOrRemoved(t *testing.T) {
	watchtest.Need(t)
	e := newEnv(t)
	e.write("a.md", "# A\n")
	c := e.open(e.cfg())
	n := newNotifier()
	done := make(chan error, 1)
	go func() { done <- c.Watch(context.Background(), n.notify) }()
	n.wait(t, "Watch started")
	list(t, c)

	// Moved away: the watch ends with an error (the engine then polls) and
	// scans report the folder missing instead of following it.
	if err := os.Rename(e.root, e.root+"-moved"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("Watch returned nil after the root was moved; want an error so the engine polls")
		}
	case <-time.After(deadline):
		t.Fatal("Watch kept running on a moved root")
	}
	err := c.ListNew(context.Background(), func(context.Context, []scouts.ItemRef) error { return nil })
	if scouts.ErrorCode(err) != scouts.EUnavailable || !strings.Contains(err.Error(), "not available") {
		t.Errorf("ListNew on a moved root = %v; want EUnavailable", err)
	}
	// Re-created at its path: the scout follows the path.
	e.write("b.md", "# B\n")
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"b.md"}) {
		t.Errorf("after re-creating the folder: %v; want b.md (a.md is gone)", got)
	}
	if m, _ := e.index().LoadDir(context.Background(), ""); len(m) != 1 {
		t.Errorf("index %v; want b.md alone", m)
	}
}

// A file written into a subdirectory of a new directory after a scan has
// indexed that subdirectory empty, but before the watcher has put a watch
// on it, raises no event. The watcher must still have the subdirectory
// listed again, not only the directory whose creation it saw: an
// incremental scan does not descend into a directory it already knows.
func TestWatchNewSubtreeFileBeforeItsWatch(t *testing.T) {
	e := newEnv(t)
	c := e.open(e.cfg())
	entered, release := make(chan struct{}), make(chan struct{})
	directory.SetAddWatch(c, func(rel string) error {
		if rel == "sub" {
			close(entered)
			<-release
		}
		return nil
	})
	n := watch(t, c)
	list(t, c)

	if err := os.MkdirAll(filepath.Join(e.root, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	select {
	case <-entered: // the watcher saw "sub" and is about to watch it
	case <-time.After(deadline):
		t.Fatal("the watcher did not start watching the new directory")
	}
	// A scan meanwhile (the root is dirty) indexes sub and sub/deeper, empty.
	if got := list(t, c); len(got) != 0 {
		t.Fatalf("scan of empty new folders found %v", paths(t, got))
	}
	e.write("sub/deeper/plan.md", "# Plan\n")
	n.drain()
	close(release)
	n.wait(t, "the new directory was watched")
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"sub/deeper/plan.md"}) {
		t.Errorf("found %v; want sub/deeper/plan.md, written before its folder was watched", got)
	}
}
