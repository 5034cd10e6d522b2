package directory_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/scouts"
)

// deadline bounds every wait on an asynchronous event.
const deadline = 10 * time.Second

// env is a watched folder with its scout's real SQLite index.
type env struct {
	t       testing.TB
	root    string
	db      *localdb.DB
	scoutID string
	created time.Time
	// clock is what the connectors' Now returns: a minute ahead of the
	// real clock by default, so that files written by the test are old
	// enough to have settled.
	mu    sync.Mutex
	clock func() time.Time
}

func newEnv(t testing.TB) *env {
	t.Helper()
	ctx := context.Background()
	base := t.TempDir()
	root := filepath.Join(base, "Inbox")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := localdb.Open(ctx, filepath.Join(base, "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	created := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	e := &env{t: t, root: root, db: db, scoutID: "sc_test", created: created}
	e.clock = func() time.Time { return time.Now().Add(time.Minute) }
	err = db.CreateScout(ctx, scouts.Scout{ID: e.scoutID, Kind: scouts.KindFolder, Name: "Inbox",
		Enabled: true, Review: true, Config: []byte(`{}`), CreatedAt: created, UpdatedAt: created})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.clock()
}

func (e *env) setClock(f func() time.Time) {
	e.mu.Lock()
	e.clock = f
	e.mu.Unlock()
}

func (e *env) index() directory.Index { return e.db.FolderIndex(e.scoutID) }

// cfg is the configuration tests start from: everything already in the
// folder is suggested.
func (e *env) cfg() directory.Config {
	return directory.Config{Path: e.root, IncludeExisting: true}
}

// open returns a connector over the env's folder and index.
func (e *env) open(cfg directory.Config) *directory.Connector {
	e.t.Helper()
	return e.openWith(cfg, e.index())
}

func (e *env) openWith(cfg directory.Config, idx directory.Index) *directory.Connector {
	e.t.Helper()
	c, err := directory.New(directory.Options{ScoutID: e.scoutID, Config: cfg, Index: idx, Now: e.now, ScoutCreatedAt: e.created})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// write creates a file (and its directories) under the root; its
// modification time is the real clock's (see date).
func (e *env) write(rel, content string) string {
	e.t.Helper()
	p := filepath.Join(e.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// date sets a file's modification time.
func (e *env) date(rel string, t time.Time) {
	e.t.Helper()
	if err := os.Chtimes(filepath.Join(e.root, filepath.FromSlash(rel)), t, t); err != nil {
		e.t.Fatal(err)
	}
}

// list runs ListNew, checking page sizes, and returns every item.
func list(t testing.TB, c *directory.Connector) []scouts.ItemRef {
	t.Helper()
	var all []scouts.ItemRef
	err := c.ListNew(context.Background(), func(_ context.Context, items []scouts.ItemRef) error {
		if len(items) == 0 || len(items) > 256 {
			t.Errorf("page of %d items; want 1..256", len(items))
		}
		all = append(all, items...)
		return nil
	})
	if err != nil {
		t.Fatalf("ListNew: %v", err)
	}
	return all
}

// byPath returns items keyed by their path relative to the root.
func byPath(t testing.TB, items []scouts.ItemRef) map[string]scouts.ItemRef {
	t.Helper()
	m := map[string]scouts.ItemRef{}
	for _, it := range items {
		rel, _, err := directory.ParseRef(it.Ref)
		if err != nil {
			t.Fatalf("item ref %q: %v", it.Ref, err)
		}
		if _, dup := m[rel]; dup {
			t.Errorf("two items for %q in one run", rel)
		}
		m[rel] = it
	}
	return m
}

func paths(t testing.TB, items []scouts.ItemRef) []string {
	var ps []string
	for p := range byPath(t, items) {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// notifier is a notify callback that tests can wait on.
type notifier chan struct{}

func newNotifier() notifier { return make(notifier, 1) }

func (n notifier) notify() {
	select {
	case n <- struct{}{}:
	default:
	}
}

func (n notifier) drain() {
	select {
	case <-n:
	default:
	}
}

func (n notifier) wait(t testing.TB, what string) {
	t.Helper()
	select {
	case <-n:
	case <-time.After(deadline):
		t.Fatalf("no notify within %s after %s", deadline, what)
	}
}

// watch runs c.Watch until the test ends and waits for its first notify
// (sent once every directory is watched). A machine with no inotify
// instance left fails the test at once, saying so.
func watch(t testing.TB, c *directory.Connector) notifier {
	t.Helper()
	watchtest.Need(t)
	n := newNotifier()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Watch(ctx, n.notify) }()
	t.Cleanup(func() {
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
	n.wait(t, "Watch started")
	return n
}
