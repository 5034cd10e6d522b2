package defsync_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

func folderDef(t *testing.T, name, path string) string {
	t.Helper()
	return fmt.Sprintf("version: 1\nkind: folder\nname: %s\nreview: true\nsource:\n  path: %s\n  include: [\"*.pdf\"]\n", name, path)
}

// Export every scout, wipe the data directory, import: the same scouts,
// definitions and rules.
func TestDefinitionsRoundTrip(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	c, _ := openCoreIn(t, dataDir)
	a := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"path": a, "exclude": []string{"tmp/**"}})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Scans", Review: true, Enabled: true, Config: cfg,
		Schedule: scouts.Schedule{Cron: "@hourly", Overlap: scouts.OverlapSkip}, Budget: scouts.Budget{DayTokens: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rules().Add(ctx, cr.Scout.ID, []byte(`{"id":"inv","when":{"name":{"contains":"invoice"}},"then":{"verdict":"show"}}`), -1); err != nil {
		t.Fatal(err)
	}
	docs, err := c.Definitions().Export(ctx, nil, defsync.ExportOptions{})
	if err != nil || len(docs) != 1 {
		t.Fatalf("export %v %v", docs, err)
	}
	want, _ := definition.Marshal(docs[0])
	hist, _ := c.Definitions().History(ctx, cr.Scout.ID)
	if len(hist) != 2 { // created, then the rule added
		t.Fatalf("history %d versions", len(hist))
	}

	c.Close()
	c2, _ := openCoreIn(t, t.TempDir()) // a wiped data directory
	parsed, err := definition.ParseAll("export.json", want)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c2.Definitions().Import(ctx, parsed, defsync.ImportOptions{})
	if err != nil || plan[0].Action != "create" {
		t.Fatalf("dry run %+v %v", plan, err)
	}
	if list, _ := c2.DB.ListScouts(ctx); len(list) != 0 {
		t.Fatal("a dry run created a scout")
	}
	if _, err := c2.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: true, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	again, err := c2.Definitions().Export(ctx, nil, defsync.ExportOptions{})
	if err != nil || len(again) != 1 {
		t.Fatal(err)
	}
	got, _ := definition.Marshal(again[0])
	if string(got) != string(want) {
		t.Fatalf("round trip differs:\n%s\n%s", want, got)
	}
	if again[0].ID != cr.Scout.ID {
		t.Fatalf("id %s, want %s", again[0].ID, cr.Scout.ID)
	}
	// Importing the same again changes nothing.
	plan, err = c2.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: true})
	if err != nil || plan[0].Action != "unchanged" {
		t.Fatalf("re-import %+v %v", plan, err)
	}
}

// History, diff and rollback; a suggestion records the version that made
// it.
func TestDefinitionHistoryRollback(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"path": dir})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "One", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	name := "Two"
	if _, err := c.UpdateScout(ctx, cr.Scout.ID, core.ScoutPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	hist, err := c.Definitions().History(ctx, cr.Scout.ID)
	if err != nil || len(hist) != 2 || hist[0].Version != 2 {
		t.Fatalf("history %+v %v", hist, err)
	}
	diff, err := c.Definitions().Diff(ctx, cr.Scout.ID, 1, 2)
	if err != nil || len(diff) != 1 || diff[0].Path != "/name" || diff[0].To != `"Two"` {
		t.Fatalf("diff %+v %v", diff, err)
	}
	ch, err := c.Definitions().Rollback(ctx, cr.Scout.ID, 1, "test")
	if err != nil || ch.Version != 3 {
		t.Fatalf("rollback %+v %v", ch, err)
	}
	s, _ := c.DB.GetScout(ctx, cr.Scout.ID)
	if s.Name != "One" {
		t.Fatalf("name after rollback %q", s.Name)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	var list []scouts.Suggestion
	reconciled(t, c, func() bool {
		list, _ = c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: cr.Scout.ID, Limit: 10})
		return len(list) > 0
	})
	v, err := c.DB.SuggestionDefinitionVersion(ctx, list[0].ID)
	if err != nil || v != 3 {
		t.Fatalf("suggestion made by version %d (%v), want 3", v, err)
	}
}

func reconciled(t *testing.T, c *core.Core, cond func() bool) {
	t.Helper()
	// Subscribed before the first look: whatever makes cond true after it
	// (a reconcile, the scout's start) publishes on the bus and wakes the
	// next look.
	sub, _, _ := c.Bus.Subscribe(0, 1024)
	defer func() { sub.Close() }()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case _, ok := <-sub.C:
			if !ok { // dropped for being slow: look again, listening anew
				sub, _, _ = c.Bus.Subscribe(0, 1024)
			}
		case <-deadline:
			if why := watchtest.Why(t.TempDir()); why != "" {
				t.Fatalf("not reconciled; errors %+v; %s", c.Definitions().Errors(), why)
			}
			t.Fatalf("not reconciled; errors %+v", c.Definitions().Errors())
		}
	}
}

// onlyScout waits for the definitions folder to make the core's one
// scout, and returns its id.
func onlyScout(t *testing.T, c *core.Core) string {
	t.Helper()
	var id string
	reconciled(t, c, func() bool {
		list, _ := c.DB.ListScouts(context.Background())
		if len(list) == 1 {
			id = list[0].ID
		}
		return id != ""
	})
	return id
}

// The definitions folder: a file creates its scout, an edit makes a new
// version, a broken edit is reported with its line and changes nothing,
// an API edit is refused with 409 unless it writes the file, and removing
// the file disables the scout.
func TestDefinitionsFolder(t *testing.T) {
	ctx := context.Background()
	defs := t.TempDir()
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs})
	watched := t.TempDir()
	file := filepath.Join(defs, "scans.yaml")
	if err := os.WriteFile(file, []byte(folderDef(t, "Scans", watched)), 0o600); err != nil {
		t.Fatal(err)
	}
	var id string
	reconciled(t, c, func() bool {
		list, _ := c.DB.ListScouts(ctx)
		by, _ := c.Definitions().ManagedBy(ctx)
		if len(list) == 1 && by[list[0].ID] == "file:scans.yaml" {
			id = list[0].ID
		}
		return id != ""
	})
	// A broken edit: reported with its line, nothing changes.
	bad := folderDef(t, "Renamed", watched) + "  exclude: 7\n"
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	reconciled(t, c, func() bool { return len(c.Definitions().Errors()) == 1 })
	de := c.Definitions().Errors()[0]
	if de.File != "scans.yaml" || de.Line != 8 || !strings.Contains(de.Reason, "/source/exclude") {
		t.Fatalf("error %+v", de)
	}
	if s, _ := c.DB.GetScout(ctx, id); s.Name != "Scans" {
		t.Fatalf("a broken file changed the scout: %q", s.Name)
	}
	// A good edit: a new version.
	if err := os.WriteFile(file, []byte(folderDef(t, "Renamed", watched)), 0o600); err != nil {
		t.Fatal(err)
	}
	reconciled(t, c, func() bool { s, _ := c.DB.GetScout(ctx, id); return s.Name == "Renamed" })
	if len(c.Definitions().Errors()) != 0 {
		t.Fatalf("errors stay: %+v", c.Definitions().Errors())
	}
	// The API may not edit it behind the file's back.
	name := "Via API"
	_, err := c.UpdateScout(ctx, id, core.ScoutPatch{Name: &name})
	if scouts.ErrorCode(err) != scouts.EConflict || !strings.Contains(scouts.ErrorMessage(err), "scans.yaml") {
		t.Fatalf("edit of a managed scout: %v", err)
	}
	if _, err := c.UpdateScout(ctx, id, core.ScoutPatch{Name: &name, WriteFile: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if d, err := definition.Parse("scans.yaml", data); err != nil || d.Name != "Via API" {
		t.Fatalf("file after write_file: %v %s", err, data)
	}
	// Removed: disabled, kept.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	reconciled(t, c, func() bool { s, err := c.DB.GetScout(ctx, id); return err == nil && !s.Enabled })
	if by, _ := c.Definitions().ManagedBy(ctx); by[id] != "" {
		t.Fatalf("still managed by %q", by[id])
	}
}

// 200 writes in a burst, some invalid: the scouts are exactly the valid
// files' (each file's last content).
func TestDefinitionsFolderBurst(t *testing.T) {
	ctx := context.Background()
	defs := t.TempDir()
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs})
	const files = 40
	want := map[string]bool{}
	invalid := map[string]bool{}
	watched := t.TempDir()
	for w := range 200 {
		i := w % files
		name := fmt.Sprintf("s%02d.yaml", i)
		folder := filepath.Join(watched, fmt.Sprint(i))
		if err := os.MkdirAll(folder, 0o700); err != nil {
			t.Fatal(err)
		}
		// Each valid file is written five times (its last name wins);
		// every seventh file is broken in each of its writes.
		text := folderDef(t, fmt.Sprintf("scout-%02d rev %d", i, w/files), folder)
		if i%7 == 3 {
			text = "version: 1\nkind: folder\nname: [broken\n"
			invalid[name] = true
		} else if w >= 200-files {
			want[fmt.Sprintf("scout-%02d rev %d", i, w/files)] = true
		}
		if err := os.WriteFile(filepath.Join(defs, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reconciled(t, c, func() bool {
		list, _ := c.DB.ListScouts(ctx)
		n := 0
		for _, s := range list {
			if want[s.Name] {
				n++
			}
		}
		return n == len(want) && len(list) == len(want) && len(c.Definitions().Errors()) == len(invalid)
	})
	list, _ := c.DB.ListScouts(ctx)
	for _, s := range list {
		if !want[s.Name] {
			t.Fatalf("unexpected scout %q", s.Name)
		}
	}
	for _, e := range c.Definitions().Errors() {
		if !invalid[e.File] || e.Line != 3 {
			t.Fatalf("error %+v", e)
		}
	}
}

// writeDefinition writes doc to file, reconciles the definitions folder by
// hand (the core is not started) and returns the id of the one scout
// there is then.
func writeDefinition(t *testing.T, c *core.Core, file, doc string) string {
	t.Helper()
	ctx := context.Background()
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Definitions().Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	list, _ := c.DB.ListScouts(ctx)
	if len(list) != 1 {
		t.Fatalf("%d scouts", len(list))
	}
	return list[0].ID
}
