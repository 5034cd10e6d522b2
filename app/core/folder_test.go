package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/coretest"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// openCoreIn opens and starts a core whose data directory is dataDir.
func openCoreIn(t *testing.T, dataDir string) (*core.Core, *bus.Subscription) {
	t.Helper()
	return openCoreWith(t, core.Config{DataDir: dataDir})
}

func openCoreWith(t *testing.T, cfg core.Config) (*core.Core, *bus.Subscription) {
	t.Helper()
	return coretest.Open(t, cfg)
}

// dataTree is a folder holding the agent's data directory, which the agent
// is given through a symbolic link: another spelling of the same folder.
func dataTree(t *testing.T) (tree, dataDir string) {
	t.Helper()
	base := t.TempDir()
	tree = filepath.Join(base, "home")
	if err := os.MkdirAll(filepath.Join(tree, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tree, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	return tree, filepath.Join(base, "link", "data")
}

// insertFolderScout stores a folder scout without the checks of
// CreateScout, as a database written before them holds it, and starts it.
func insertFolderScout(t *testing.T, c *core.Core, cfg map[string]any) scouts.Scout {
	t.Helper()
	raw, _ := json.Marshal(cfg)
	now := time.Now().UTC().Truncate(time.Millisecond)
	s := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindFolder, Name: "old", Enabled: true, Review: true,
		Config: raw, CreatedAt: now, UpdatedAt: now}
	if err := c.DB.CreateScout(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	c.Engine.Sync(s)
	return s
}

func suggestedPath(name string) func(scouts.Event) bool {
	return func(e scouts.Event) bool {
		s, ok := e.Data.(scouts.Suggestion)
		return e.Type == scouts.EventSuggestionCreated && ok && filepath.Base(s.Path) == name
	}
}

// A folder scout over a folder that holds the agent's data directory never
// reads it: not the database, its WAL, the lock or the API token, not at
// the first scan and not while the agent writes to its database. The scout
// predates the guard (it is stored as an old database holds it), and the
// data directory is spelled through a link.
func TestFolderScoutOverTheDataDirectoryNeverReadsIt(t *testing.T) {
	ctx := context.Background()
	tree, dataDir := dataTree(t)
	c, sub := openCoreIn(t, dataDir)
	token := strings.Repeat("5e", 32)
	if err := os.WriteFile(filepath.Join(dataDir, "local-api.token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "before.md"), []byte("# Before\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	s := insertFolderScout(t, c, map[string]any{"path": tree, "include_existing": true, "settle": "1ms"})
	waitFor(t, sub, "the suggestion of a file already there", suggestedPath("before.md"))
	// Suggesting wrote to the database; the next file comes through the
	// watch, after those writes.
	if err := os.WriteFile(filepath.Join(tree, "after.md"), []byte("# After\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, "the suggestion of a new file", suggestedPath("after.md"))

	all, err := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: s.ID, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, sg := range all {
		if strings.HasPrefix(sg.Path, filepath.Join(tree, "data")+string(filepath.Separator)) || strings.Contains(sg.Title, token) {
			t.Errorf("suggested %q (title %q) from the agent's data directory", sg.Path, sg.Title)
		}
	}
	if len(all) != 2 {
		t.Errorf("%d suggestions; want 2 (before.md, after.md)", len(all))
	}
}

// A folder scout inside the data directory is refused when it is created,
// whatever the spelling, and one stored before that check does not run.
func TestFolderScoutInsideTheDataDirectoryIsRefused(t *testing.T) {
	ctx := context.Background()
	tree, dataDir := dataTree(t)
	c, _ := openCoreIn(t, dataDir)
	if err := os.Mkdir(filepath.Join(dataDir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dataDir, filepath.Join(tree, "data"), filepath.Join(tree, "data", "sub")} {
		cfg, _ := json.Marshal(map[string]any{"path": p})
		_, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Review: true, Enabled: true, Config: cfg})
		var se *scouts.Error
		if !errors.As(err, &se) || se.Code != scouts.EInvalid || !strings.Contains(err.Error(), "data") {
			t.Errorf("a folder scout on %s: %v; want an invalid-request error about the data folder", p, err)
		}
	}

	s := insertFolderScout(t, c, map[string]any{"path": filepath.Join(tree, "data"), "include_existing": true})
	got, err := c.DB.GetScout(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.LastError, "data") || c.Engine.IsRunning(s.ID) {
		t.Errorf("a stored scout inside the data folder: running %v, health %q; want stopped with an error about the data folder",
			c.Engine.IsRunning(s.ID), got.LastError)
	}
}

// `add-folder /` used to be accepted and flooded the inbox from /proc: the
// filesystem's root and the system's pseudo-filesystems are refused.
func TestFolderScoutOnTheFilesystemRootOrASystemFolderIsRefused(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	for _, p := range []string{string(filepath.Separator), "/proc", "/sys", "/dev"} {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		cfg, _ := json.Marshal(map[string]any{"path": p})
		_, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Review: true, Enabled: true, Config: cfg})
		var se *scouts.Error
		if !errors.As(err, &se) || se.Code != scouts.EInvalid {
			t.Errorf("a folder scout on %s: %v; want refused", p, err)
		}
	}
	if all, err := c.DB.ListScouts(ctx); err != nil || len(all) != 0 {
		t.Errorf("scouts stored: %v, %v; want none", all, err)
	}
}

// A large folder is accepted with a warning that says how many files it
// holds; above the hard limit it is refused unless the user insists.
func TestLargeFolderWarnsAndAboveTheLimitNeedsForce(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), FolderWarnFiles: 5, FolderMaxFiles: 20})
	folder := func(files int) string {
		dir := t.TempDir()
		for i := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.md", i)), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Excluded files do not count.
		if err := os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	create := func(dir string, force bool) (core.Created, error) {
		cfg, _ := json.Marshal(map[string]any{"path": dir})
		return c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Review: true, Enabled: true, Config: cfg, Force: force})
	}

	if cr, err := create(folder(5), false); err != nil || len(cr.Warnings) != 0 {
		t.Errorf("a 5-file folder: %v, warnings %q; want created without warning", err, cr.Warnings)
	}
	if cr, err := create(folder(8), false); err != nil || len(cr.Warnings) != 1 || !strings.Contains(cr.Warnings[0], "8 files") {
		t.Errorf("an 8-file folder: %v, warnings %q; want created with a warning saying it holds 8 files", err, cr.Warnings)
	}
	big := folder(25)
	_, err := create(big, false)
	var se *scouts.Error
	if !errors.As(err, &se) || se.Code != scouts.EInvalid || !strings.Contains(err.Error(), "more than 20 files") || !strings.Contains(err.Error(), "force") {
		t.Errorf("a 25-file folder: %v; want refused, saying it holds more than 20 files and how to insist", err)
	}
	cr, err := create(big, true)
	if err != nil || len(cr.Warnings) != 1 || !strings.Contains(cr.Warnings[0], "more than 20 files") {
		t.Errorf("a 25-file folder, forced: %v, warnings %q; want created with a warning", err, cr.Warnings)
	}
}
