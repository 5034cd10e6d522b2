package watchhub

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/scouts-hq/scouts/internal/syncbuf"
)

// deadline bounds every wait for an event; events come in milliseconds.
const deadline = 30 * time.Second

func newHub(t *testing.T, opts Options) *Hub {
	t.Helper()
	h := New(opts)
	t.Cleanup(func() { h.Close() })
	return h
}

func subscribe(t *testing.T, h *Hub, root string, dirs ...string) *Sub {
	t.Helper()
	s, err := h.Subscribe(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, d := range append([]string{root}, dirs...) {
		if err := s.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor reads s's events until one names path; it fails on an error or
// after the deadline.
func waitFor(t *testing.T, s *Sub, path, who string) {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatalf("%s: events closed before %s", who, path)
			}
			if ev.Name == path {
				return
			}
		case err := <-s.Errors():
			t.Fatalf("%s: watch error before %s: %v", who, path, err)
		case <-timeout:
			t.Fatalf("%s: no event for %s", who, path)
		}
	}
}

// watched is what fsnotify itself watches: the instance's real watches.
func watched(h *Hub) []string {
	h.mu.Lock()
	fw := h.fw
	h.mu.Unlock()
	l := fw.WatchList()
	slices.Sort(l)
	return l
}

// Two subscribers on overlapping trees (one folder inside the other) hold
// the shared directory together: both get its events, and the first one
// to let go leaves the other's watch in place; the last one removes it.
func TestOverlappingSubscribersShareWatches(t *testing.T) {
	base := t.TempDir()
	inner := mkdir(t, filepath.Join(base, "inner"))
	h := newHub(t, Options{})
	outer := subscribe(t, h, base, inner)
	in := subscribe(t, h, inner)

	write(t, filepath.Join(inner, "a.md"))
	waitFor(t, outer, filepath.Join(inner, "a.md"), "the outer folder's subscriber")
	waitFor(t, in, filepath.Join(inner, "a.md"), "the inner folder's subscriber")
	if got := len(h.holders[inner]); got != 2 {
		t.Fatalf("the shared directory is held %d times; want 2", got)
	}

	outer.Remove(inner)
	write(t, filepath.Join(inner, "b.md"))
	waitFor(t, in, filepath.Join(inner, "b.md"), "the inner folder's subscriber, after the outer let go of it")

	outer.Close()
	write(t, filepath.Join(inner, "c.md"))
	waitFor(t, in, filepath.Join(inner, "c.md"), "the inner folder's subscriber, after the outer one closed")
	if got := watched(h); !slices.Equal(got, []string{inner}) {
		t.Fatalf("watches after the outer subscriber closed: %v; want the inner folder alone", got)
	}

	in.Close()
	if got := watched(h); len(got) != 0 {
		t.Fatalf("watches after both closed: %v; want none", got)
	}
}

// A folder reached through a link is watched once, and each subscriber
// hears its events under the name it gave its root.
func TestLinkedRootNamedAsSubscribed(t *testing.T) {
	base := t.TempDir()
	real := mkdir(t, filepath.Join(base, "real"))
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	h := newHub(t, Options{})
	byLink := subscribe(t, h, link)
	byReal := subscribe(t, h, real)
	write(t, filepath.Join(real, "a.md"))
	waitFor(t, byLink, filepath.Join(link, "a.md"), "the subscriber through the link")
	waitFor(t, byReal, filepath.Join(real, "a.md"), "the subscriber on the folder itself")
	byReal.Close()
	write(t, filepath.Join(real, "b.md"))
	waitFor(t, byLink, filepath.Join(link, "b.md"), "the subscriber through the link, after the other closed")
}

// A subscriber hears only the directories it holds: not one inside its
// root that another subscriber watches and it left out (Scouts' own
// folders inside a scout's folder, an excluded one).
func TestEventsOnlyToTheirHolders(t *testing.T) {
	base := t.TempDir()
	inner := mkdir(t, filepath.Join(base, "inner"))
	h := newHub(t, Options{})
	outer := subscribe(t, h, base) // inner left out
	in := subscribe(t, h, inner)
	write(t, filepath.Join(inner, "a.md"))
	waitFor(t, in, filepath.Join(inner, "a.md"), "the inner folder's subscriber")
	// One instance reports events in order: the outer subscriber would
	// have heard a.md before the file written after it.
	write(t, filepath.Join(base, "after.md"))
	timeout := time.After(deadline)
	for {
		select {
		case ev := <-outer.Events():
			if strings.HasPrefix(ev.Name, inner+string(filepath.Separator)) {
				t.Fatalf("the outer subscriber heard %s, in a folder it does not watch", ev.Name)
			}
			if ev.Name == filepath.Join(base, "after.md") {
				return
			}
		case <-timeout:
			t.Fatal("the outer subscriber heard nothing of its own folder")
		}
	}
}

// The watch limit (ENOSPC from inotify_add_watch) is each subscriber's
// error, naming the sysctl to raise, and one line in the log however many
// subscribers meet it.
func TestWatchLimitReportedOnce(t *testing.T) {
	var log syncbuf.Buffer
	h := newHub(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Add: func(path string) error {
			if filepath.Base(path) == "deep" {
				return syscall.ENOSPC
			}
			return nil
		}})
	for i := range 3 {
		root := mkdir(t, filepath.Join(t.TempDir(), fmt.Sprint(i)))
		s := subscribe(t, h, root)
		err := s.Add(mkdir(t, filepath.Join(root, "deep")))
		var le *LimitError
		if !errors.As(err, &le) || le.Sysctl != SysctlWatches {
			t.Fatalf("adding past the watch limit: %v; want a LimitError on %s", err, SysctlWatches)
		}
		if !strings.Contains(err.Error(), "sudo sysctl fs.inotify.max_user_watches=") {
			t.Errorf("the error does not say how to raise the limit: %v", err)
		}
	}
	if n := strings.Count(log.String(), "level=WARN"); n != 1 || !strings.Contains(log.String(), "raise_with=\"sudo sysctl fs.inotify.max_user_watches=") {
		t.Errorf("the log says it %d times; want once, with the sysctl:\n%s", n, log.String())
	}
}

// No inotify instance left (EMFILE when the watcher opens): Subscribe
// says which limit, the log says it once, and a later Subscribe opens the
// watcher once an instance is free again.
func TestInstanceLimitReportedOnceAndRetried(t *testing.T) {
	var log syncbuf.Buffer
	full := true
	h := newHub(t, Options{Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Open: func() error {
			if full {
				return fmt.Errorf("couldn't initialize inotify: %w", syscall.EMFILE)
			}
			return nil
		}})
	for range 3 {
		_, err := h.Subscribe(t.TempDir())
		var le *LimitError
		if !errors.As(err, &le) || le.Sysctl != SysctlInstances || !strings.Contains(err.Error(), "sudo sysctl fs.inotify.max_user_instances=") {
			t.Fatalf("subscribing with no instance left: %v; want a LimitError naming %s", err, SysctlInstances)
		}
	}
	if n := strings.Count(log.String(), "level=WARN"); n != 1 || !strings.Contains(log.String(), "limit="+SysctlInstances) {
		t.Errorf("the log says it %d times; want once, naming %s:\n%s", n, SysctlInstances, log.String())
	}
	full = false
	root := t.TempDir()
	s := subscribe(t, h, root)
	write(t, filepath.Join(root, "a.md"))
	waitFor(t, s, filepath.Join(root, "a.md"), "the subscriber once an instance was free")
}

// A subscriber that does not keep up loses the events past its queue and
// is told so once, after the loss (an overflow: it rescans), while the
// dispatcher never waits for it. The queue is read here without its pump,
// which would take events off it while the test fills it.
func TestSlowSubscriberOverflows(t *testing.T) {
	s := &Sub{wake: make(chan struct{}, 1)}
	for i := range maxQueued + 10 {
		s.post(&fsnotify.Event{Name: fmt.Sprint(i), Op: fsnotify.Create}, nil)
	}
	if len(s.queue) != maxQueued || !slices.Equal(s.errs, []error{fsnotify.ErrEventOverflow}) {
		t.Fatalf("%d events queued and errors %v; want %d and one overflow", len(s.queue), s.errs, maxQueued)
	}
}

// Closing the hub closes every subscriber's channels (a watch loop ends)
// and frees its inotify instance.
func TestCloseEndsSubscribers(t *testing.T) {
	h := New(Options{})
	s := subscribe(t, h, t.TempDir())
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-s.Events():
		if ok {
			t.Fatal("an event after Close")
		}
	case <-time.After(deadline):
		t.Fatal("the subscriber's events stayed open after the hub closed")
	}
	if _, err := h.Subscribe(t.TempDir()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe on a closed hub: %v", err)
	}
}

// EMFILE because the process ran out of its own descriptors is not
// inotify's limit: raising the sysctl would not help.
func TestClassify(t *testing.T) {
	if err := classify(syscall.ENOSPC, true); errors.As(err, new(*LimitError)) {
		t.Errorf("ENOSPC opening a watcher is not the watch limit: %v", err)
	}
	if err := classify(fmt.Errorf("x: %w", syscall.ENOSPC), false); !errors.As(err, new(*LimitError)) {
		t.Errorf("ENOSPC adding a watch is the watch limit: %v", err)
	}
	if err := classify(syscall.EACCES, false); errors.As(err, new(*LimitError)) {
		t.Errorf("EACCES is no limit: %v", err)
	}
}
