package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/internal/syncbuf"
	"github.com/scouts-hq/scouts/scouts"
)

// createFolderScouts creates n folder scouts, each over a new folder of
// its own under base, and returns their ids.
func createFolderScouts(t *testing.T, c *core.Core, base string, n int) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for i := range n {
		dir := filepath.Join(base, fmt.Sprint(i))
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg, _ := json.Marshal(map[string]any{"path": dir})
		cr, err := c.CreateScout(context.Background(), core.NewScout{Kind: scouts.KindFolder, Name: fmt.Sprint("folder ", i),
			Review: true, Enabled: true, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		ids[cr.Scout.ID] = true
	}
	return ids
}

// watchStates reads the bus until every scout in ids has announced its
// watch (scout.watch, sent once its tree is watched or a limit stopped
// it), and returns each one's problem ("" when watched live).
func watchStates(t *testing.T, sub *bus.Subscription, ids map[string]bool) map[string]string {
	t.Helper()
	got := map[string]string{}
	deadline := time.After(60 * time.Second)
	for len(got) < len(ids) {
		select {
		case m, ok := <-sub.C:
			if !ok {
				t.Fatal("the bus dropped the test's subscription")
			}
			if m.Event.Type != core.EventScoutWatch {
				continue
			}
			d := m.Event.Data.(map[string]any)
			if id := d["scout_id"].(string); ids[id] {
				got[id] = d["problem"].(string)
			}
		case <-deadline:
			t.Fatalf("%d of %d folder scouts announced their watch", len(got), len(ids))
		}
	}
	return got
}

// 200 folder scouts and the definitions folder in one agent hold one
// inotify instance between them (a user has 128, shared with every other
// program): each one watched live.
func TestFolderScoutsShareOneInotifyInstance(t *testing.T) {
	watchtest.Need(t)
	before := watchtest.Instances(t)
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: t.TempDir()})
	ids := createFolderScouts(t, c, t.TempDir(), 200)
	for id, problem := range watchStates(t, sub, ids) {
		if problem != "" {
			t.Errorf("scout %s is not watched live: %s", id, problem)
		}
	}
	if n := watchtest.Instances(t) - before; n != 1 {
		t.Fatalf("200 folder scouts and the definitions folder hold %d inotify instances; want 1", n)
	}
}

// The inotify watch limit met by three scouts (simulated: the watcher's
// add answers ENOSPC for their subfolders) is said once in the log and in
// each scout's health, with the sysctl to raise; the scouts run on.
func TestWatchLimitInTheScoutsHealth(t *testing.T) {
	watchtest.Need(t)
	var logText syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logText, nil))
	hub := watchhub.New(watchhub.Options{Logger: log, Add: func(path string) error {
		if filepath.Base(path) == "sub" {
			return syscall.ENOSPC
		}
		return nil
	}})
	t.Cleanup(func() { hub.Close() }) // after the core's Close
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir(), Logger: log, Watches: hub})
	ids := createFolderScouts(t, c, t.TempDir(), 3)
	for id, problem := range watchStates(t, sub, ids) {
		if !strings.Contains(problem, "sudo sysctl "+watchhub.SysctlWatches+"=") {
			t.Errorf("scout %s's watch: %q; want the watch limit with the sysctl to raise", id, problem)
		}
		if got := c.WatchProblem(id); got != problem {
			t.Errorf("scout %s's health says %q; want %q", id, got, problem)
		}
		if s, err := c.DB.GetScout(context.Background(), id); err != nil || s.LastError != "" {
			t.Errorf("scout %s: last error %q (%v); want none: it runs on its rescans", id, s.LastError, err)
		}
	}
	n := 0
	for _, line := range strings.Split(logText.String(), "\n") {
		if strings.Contains(line, watchhub.SysctlWatches) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d lines of the log name %s; want one:\n%s", n, watchhub.SysctlWatches, logText.String())
	}
}

// A folder scout over a tree holding the definitions folder hears nothing
// of it, though the agent's one watcher watches it for the definitions: a
// definition file written there is never a card (the scout leaves Scouts'
// own folders out of its watches, and only the subscribers holding a
// folder hear its events).
func TestFolderScoutHearsNothingOfTheDefinitionsFolderInside(t *testing.T) {
	watchtest.Need(t)
	ctx := context.Background()
	tree := t.TempDir()
	config := filepath.Join(tree, "config")
	defs := filepath.Join(config, "scouts.d")
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs, ProtectedDirs: []string{config}})
	s := insertFolderScout(t, c, map[string]any{"path": tree, "settle": "1ms"})
	announced := watchStates(t, sub, map[string]bool{s.ID: true})
	if announced[s.ID] != "" {
		t.Fatalf("the scout is not watched live: %s", announced[s.ID])
	}
	if err := os.WriteFile(filepath.Join(defs, "notes.yaml"), []byte("version: 1\nkind: folder\nname: [broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "after.md"), []byte("# After\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, "the suggestion of a new file", suggestedPath("after.md"))
	// The run that suggested after.md took every change heard before it.
	waitFor(t, sub, "the end of that run", func(e scouts.Event) bool {
		d, ok := e.Data.(map[string]any)
		return e.Type == scouts.EventScoutRun && ok && d["scout_id"] == s.ID
	})
	all, err := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: s.ID, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, sg := range all {
		if strings.HasPrefix(sg.Path, config+string(filepath.Separator)) {
			t.Errorf("suggested %s, from the definitions folder", sg.Path)
		}
	}
}
