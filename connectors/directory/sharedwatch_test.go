package directory_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/internal/syncbuf"
	"github.com/scouts-hq/scouts/scouts"
)

// scoutOn opens a folder scout of its own (its own index) over root in
// e's database, watching through hub.
func scoutOn(t *testing.T, e *env, id, root string, hub *watchhub.Hub, log *slog.Logger, onLimit func(error)) *directory.Connector {
	t.Helper()
	if id != e.scoutID {
		err := e.db.CreateScout(context.Background(), scouts.Scout{ID: id, Kind: scouts.KindFolder, Name: id,
			Enabled: true, Review: true, Config: []byte(`{}`), CreatedAt: e.created, UpdatedAt: e.created})
		if err != nil {
			t.Fatal(err)
		}
	}
	cfg := directory.Config{Path: root, IncludeExisting: true, RescanInterval: directory.Duration(time.Second)}
	c, err := directory.New(directory.Options{ScoutID: id, Config: cfg, Index: e.db.FolderIndex(id), Now: e.now,
		ScoutCreatedAt: e.created, Logger: log, Watches: hub, OnWatchLimit: onLimit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startWatch runs c.Watch until stop (or the test's end) and waits for its
// first notify, sent once its tree is watched.
func startWatch(t *testing.T, c *directory.Connector) (n notifier, stop func()) {
	t.Helper()
	n = newNotifier()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Watch(ctx, n.notify) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Watch returned %v after its context ended; want nil", err)
				}
			case <-time.After(deadline):
				t.Errorf("Watch did not return within %s of its context ending", deadline)
			}
		})
	}
	t.Cleanup(stop)
	n.wait(t, "Watch started")
	return n, stop
}

// Two scouts on overlapping folders (one inside the other) share the
// agent's one watcher: both hear a file arrive where their trees meet, and
// the outer scout stopping leaves the inner one its events.
func TestOverlappingScoutsShareOneWatcher(t *testing.T) {
	watchtest.Need(t)
	e := newEnv(t)
	inner := filepath.Dir(e.write("inner/old.md", "# old\n"))
	before := watchtest.Instances(t)
	hub := watchhub.New(watchhub.Options{})
	t.Cleanup(func() { hub.Close() }) // after the watches end
	outer := scoutOn(t, e, e.scoutID, e.root, hub, nil, nil)
	in := scoutOn(t, e, "sc_inner", inner, hub, nil, nil)
	nOuter, stopOuter := startWatch(t, outer)
	nIn, _ := startWatch(t, in)
	if n := watchtest.Instances(t) - before; n != 1 {
		t.Errorf("two folder scouts hold %d inotify instances; want the shared one", n)
	}
	list(t, outer)
	list(t, in)

	e.write("inner/x.md", "# X\n")
	nOuter.wait(t, "a file arrived in the inner folder (outer scout)")
	nIn.wait(t, "a file arrived in the inner folder (inner scout)")
	if got := paths(t, list(t, outer)); !slices.Equal(got, []string{"inner/x.md"}) {
		t.Errorf("the outer scout found %v; want inner/x.md", got)
	}
	if got := paths(t, list(t, in)); !slices.Equal(got, []string{"x.md"}) {
		t.Errorf("the inner scout found %v; want x.md", got)
	}

	stopOuter()
	nIn.drain()
	e.write("inner/y.md", "# Y\n")
	nIn.wait(t, "a file arrived after the outer scout stopped")
	if got := paths(t, list(t, in)); !slices.Equal(got, []string{"y.md"}) {
		t.Errorf("the inner scout found %v after the outer one stopped; want y.md", got)
	}
}

// limits records what OnWatchLimit heard.
type limits struct {
	mu   sync.Mutex
	errs []error
}

func (l *limits) note(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
}

func (l *limits) heard() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errs)
}

// The inotify watch limit (ENOSPC), met by two scouts, is one line in the
// log naming the sysctl to raise, and each scout hears it once: the folder
// the limit left unwatched is found by the periodic rescan.
func TestWatchLimitReportedOnceWithTheSysctl(t *testing.T) {
	watchtest.Need(t)
	e := newEnv(t)
	var logText syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logText, nil))
	hub := watchhub.New(watchhub.Options{Logger: log, Add: func(path string) error {
		if filepath.Base(path) == "deep" {
			return syscall.ENOSPC
		}
		return nil
	}})
	t.Cleanup(func() { hub.Close() }) // after the watches end
	second := filepath.Join(filepath.Dir(e.root), "Second")
	for _, d := range []string{filepath.Join(e.root, "deep"), filepath.Join(second, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var heard1, heard2 limits
	c1 := scoutOn(t, e, e.scoutID, e.root, hub, log, heard1.note)
	c2 := scoutOn(t, e, "sc_second", second, hub, log, heard2.note)
	n1, _ := startWatch(t, c1)
	startWatch(t, c2)
	for i, h := range []*limits{&heard1, &heard2} {
		errs := h.heard()
		var le *watchhub.LimitError
		if len(errs) != 1 || !errors.As(errs[0], &le) || le.Sysctl != watchhub.SysctlWatches ||
			!strings.Contains(errs[0].Error(), "sudo sysctl fs.inotify.max_user_watches=") {
			t.Errorf("scout %d heard %v; want the watch limit once, with the sysctl to raise", i+1, errs)
		}
	}
	if n := strings.Count(logText.String(), "level=WARN"); n != 1 || !strings.Contains(logText.String(), watchhub.SysctlWatches) {
		t.Errorf("the log warns %d times; want once, naming %s:\n%s", n, watchhub.SysctlWatches, logText.String())
	}

	list(t, c1)
	e.write("deep/new.md", "# New\n")
	n1.drain()
	n1.wait(t, "a rescan interval passed")
	if got := paths(t, list(t, c1)); !slices.Equal(got, []string{"deep/new.md"}) {
		t.Errorf("found %v; want deep/new.md from the rescan", got)
	}
}

// No inotify instance left: the scout hears which limit, and Watch says
// it cannot watch (the engine then polls without calling it a failure).
func TestInstanceLimitLeavesTheScoutPolling(t *testing.T) {
	e := newEnv(t)
	hub := watchhub.New(watchhub.Options{Open: func() error { return syscall.EMFILE }})
	t.Cleanup(func() { hub.Close() }) // after the watches end
	var heard limits
	c := scoutOn(t, e, e.scoutID, e.root, hub, nil, heard.note)
	err := c.Watch(context.Background(), func() {})
	if !errors.Is(err, scouts.ErrCannotWatch) || !strings.Contains(err.Error(), "sudo sysctl fs.inotify.max_user_instances=") {
		t.Errorf("Watch with no instance left: %v; want ErrCannotWatch naming the sysctl", err)
	}
	var le *watchhub.LimitError
	if errs := heard.heard(); len(errs) != 1 || !errors.As(errs[0], &le) || le.Sysctl != watchhub.SysctlInstances {
		t.Errorf("the scout heard %v; want the instance limit once", errs)
	}
}
