package directory_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

// A protected folder inside the root (the agent's data, spelled through a
// link; the definitions folder, created after the scout started) is never
// listed, never watched and never suggested from.
func TestProtectedFoldersAreNeitherReadNorWatched(t *testing.T) {
	e := newEnv(t)
	e.write("data/scouts.db", "SQLite format 3\x00")
	e.write("data/local-api.token", "5e5e5e5e\n")
	e.write("note.md", "# Note\n")
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(e.root, alias); err != nil {
		t.Fatal(err)
	}
	cfg := e.cfg()
	cfg.Settle = directory.Duration(10 * time.Millisecond)
	c, err := directory.New(directory.Options{ScoutID: e.scoutID, Config: cfg, Index: e.index(), Now: e.now,
		ScoutCreatedAt: e.created, Protected: []string{filepath.Join(alias, "data"), filepath.Join(e.root, "conf", "scouts.d")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var mu sync.Mutex
	var watched []string
	directory.SetAddWatch(c, func(rel string) error {
		mu.Lock()
		watched = append(watched, rel)
		mu.Unlock()
		return nil
	})
	n := watch(t, c)
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"note.md"}) {
		t.Fatalf("first scan: %v; want note.md only", got)
	}

	// The agent writes to its data; the definitions folder appears.
	e.write("data/scouts.db-wal", "wal frames")
	e.write("conf/scouts.d/inbox.json", `{"kind":"folder"}`)
	e.write("conf/other.md", "# Other\n")
	var got []string
	for end := time.Now().Add(deadline); !slices.Contains(got, "conf/other.md"); {
		if time.Now().After(end) {
			t.Fatalf("conf/other.md not found within %s; found %v", deadline, got)
		}
		n.wait(t, "files were written")
		got = append(got, paths(t, list(t, c))...)
	}
	for _, p := range got {
		if strings.HasPrefix(p, "data/") || strings.HasPrefix(p, "conf/scouts.d/") {
			t.Errorf("suggested %s from a protected folder", p)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, w := range watched {
		if w == "data" || w == "conf/scouts.d" {
			t.Errorf("watched protected folder %s (watched: %v)", w, watched)
		}
	}
}

// A root that is, or is inside, a protected folder is refused, whatever
// its spelling.
func TestRootInsideProtectedFolderIsRefused(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "data")
	if err := os.MkdirAll(filepath.Join(data, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(data, alias); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{data, filepath.Join(data, "sub"), alias, filepath.Join(alias, "sub")} {
		err := directory.CheckRoot(root, []string{data})
		var se *scouts.Error
		if !errors.As(err, &se) || se.Code != scouts.EInvalid || !strings.Contains(err.Error(), "own data") {
			t.Errorf("CheckRoot(%s): %v; want refused as Scouts' own data", root, err)
		}
	}
	if err := directory.CheckRoot(base, []string{data}); err != nil {
		t.Errorf("CheckRoot of the folder holding the data: %v; want allowed (the data is skipped)", err)
	}
}

// The filesystem's root and the system's pseudo-filesystems (and folders
// inside them) are refused.
func TestCheckRootRefusesTheFilesystemRootAndSystemFolders(t *testing.T) {
	roots := []string{string(filepath.Separator)}
	for _, p := range []string{"/proc", "/proc/self", "/sys", "/sys/kernel", "/dev", "/dev/shm"} {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			roots = append(roots, p)
		}
	}
	for _, root := range roots {
		err := directory.CheckRoot(root, nil)
		var se *scouts.Error
		if !errors.As(err, &se) || se.Code != scouts.EInvalid {
			t.Errorf("CheckRoot(%s): %v; want refused", root, err)
		}
	}
	if err := directory.CheckRoot(t.TempDir(), nil); err != nil {
		t.Errorf("CheckRoot of an ordinary folder: %v", err)
	}
}
