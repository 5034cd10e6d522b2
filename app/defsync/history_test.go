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
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// agentState is what a person would compare after a round trip: each
// scout, its versions (number, document, when, by whom, why), the
// current version and its rules.
func agentState(t *testing.T, c *core.Core) string {
	t.Helper()
	ctx := context.Background()
	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states, err := c.DB.ScoutDefinitionStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, s := range list {
		d, err := c.Definitions().Document(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := definition.Marshal(d)
		fmt.Fprintf(&b, "scout %s current version %d\n%s", s.ID, states[s.ID].Version, doc)
		versions, err := c.DB.ListScoutVersions(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range versions {
			fmt.Fprintf(&b, "version %d %s %s %q\n%s", v.Version, v.CreatedAt.Format("2006-01-02T15:04:05.000Z"), v.Actor, v.Note, compact(v.Document))
		}
		rules, err := c.DB.ListRules(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			fmt.Fprintf(&b, "rule %d %s enabled=%v %s\n", r.Position, r.ID, r.Enabled, compact(r.Doc))
		}
	}
	return b.String()
}

func compact(doc []byte) string {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return string(doc)
	}
	out, _ := json.Marshal(v)
	return string(out) + "\n"
}

// Export every scout with its history, wipe the data directory, import:
// the same scouts, versions (numbers, documents, dates, authors, notes;
// the current one the newest) and rules. Importing it again changes
// nothing; into an agent where the scout has another history it is
// refused, and without the history it is a new version.
func TestDefinitionsRoundTripWithHistory(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	inWindow := defsync.WithActor(ctx, "window")
	cfg, _ := json.Marshal(map[string]any{"path": t.TempDir(), "include": []string{"*.pdf"}})
	scans, err := c.CreateScout(inWindow, core.NewScout{Kind: scouts.KindFolder, Name: "Scans", Review: true, Enabled: true, Config: cfg,
		Schedule: scouts.Schedule{Cron: "@hourly", Overlap: scouts.OverlapSkip}, Budget: scouts.Budget{DayTokens: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	id := scans.Scout.ID
	for _, r := range []string{
		`{"id":"inv","when":{"name":{"contains":"invoice"}},"then":{"verdict":"show"}}`,
		`{"id":"tmp","when":{"ext":{"equals":"tmp"}},"then":{"verdict":"screen"}}`,
	} {
		if _, err := c.Rules().Add(defsync.WithActor(ctx, "cli"), id, []byte(r), -1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Rules().SetEnabled(inWindow, id, "tmp", false); err != nil {
		t.Fatal(err)
	}
	name := "Scanned letters"
	if _, err := c.UpdateScout(inWindow, id, core.ScoutPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	set := scouts.DefaultLearnSettings()
	set.ColdStart = 12
	if err := c.Definitions().SetLearnSettings(inWindow, id, set); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Definitions().Rollback(ctx, id, 4, "window"); err != nil { // the name back, the thresholds as they were
		t.Fatal(err)
	}
	cfg2, _ := json.Marshal(map[string]any{"path": t.TempDir()})
	if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Desk", Review: false, Enabled: false, Config: cfg2}); err != nil {
		t.Fatal(err)
	}

	docs, err := c.Definitions().Export(ctx, nil, defsync.ExportOptions{History: true})
	if err != nil || len(docs) != 2 {
		t.Fatalf("export: %d, %v", len(docs), err)
	}
	if n := len(docs[0].History); n != 7 { // created, 2 rules added, 1 switched off, renamed, thresholds, rollback
		t.Fatalf("scans exported with %d versions", n)
	}
	file, err := json.MarshalIndent(docs, "", "  ") // what GET /api/v1/definitions?history=true answers
	if err != nil {
		t.Fatal(err)
	}
	before := agentState(t, c)
	c.Close()

	c2, _ := openCoreIn(t, t.TempDir()) // a wiped data directory
	parsed, err := definition.ParseAll("export.json", file)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c2.Definitions().Import(ctx, parsed, defsync.ImportOptions{})
	if err != nil || len(plan) != 2 || plan[0].Action != "create" || fmt.Sprint(plan[0].PastVersions) != "[1 2 3 4 5 6 7]" {
		t.Fatalf("dry run %+v %v", plan, err)
	}
	if list, _ := c2.DB.ListScouts(ctx); len(list) != 0 {
		t.Fatal("a dry run created a scout")
	}
	applied, err := c2.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: true, Actor: "cli", Note: "import"})
	if err != nil || applied[0].Version != 7 || applied[1].Version != 1 {
		t.Fatalf("import %+v %v", applied, err)
	}
	if after := agentState(t, c2); after != before {
		t.Fatalf("the round trip changed the agent:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// Reading the history records nothing new: the current version is
	// the newest.
	if hist, err := c2.Definitions().History(ctx, id); err != nil || len(hist) != 7 || hist[0].Note != "rollback to version 4" {
		t.Fatalf("history after import: %d versions, %v", len(hist), err)
	}
	if d, err := c2.Definitions().Diff(ctx, id, 4, 5); err != nil || len(d) != 1 || d[0].Path != "/name" {
		t.Fatalf("diff of imported versions %+v %v", d, err)
	}
	again, err := c2.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: true, Actor: "cli"})
	if err != nil || again[0].Action != "unchanged" || again[1].Action != "unchanged" {
		t.Fatalf("re-import %+v %v", again, err)
	}

	// A scout the agent changed since goes on from the export: the
	// export's current definition comes back as a new version.
	renamed := "Renamed here"
	if _, err := c2.UpdateScout(ctx, id, core.ScoutPatch{Name: &renamed}); err != nil {
		t.Fatal(err)
	}
	back, err := c2.Definitions().Import(ctx, parsed[:1], defsync.ImportOptions{Apply: true, Actor: "cli", Note: "import"})
	if err != nil || back[0].Action != "update" || back[0].Version != 9 || len(back[0].PastVersions) != 0 {
		t.Fatalf("import onto a scout that went on %+v %v", back, err)
	}

	// An agent where the scout has another history (imported without
	// it: its version 1 is the definition as exported, not as created).
	c3, _ := openCoreIn(t, t.TempDir())
	if _, err := c3.Definitions().Import(ctx, parsed[:1], defsync.ImportOptions{Apply: true, WithoutHistory: true}); err != nil {
		t.Fatal(err)
	}
	other := agentState(t, c3)
	_, err = c3.Definitions().Import(ctx, parsed[:1], defsync.ImportOptions{Apply: true})
	if scouts.ErrorCode(err) != scouts.EConflict || !strings.Contains(scouts.ErrorMessage(err), "has another history: its version 1 is not the one in the import") ||
		!strings.Contains(scouts.ErrorMessage(err), "--no-history") {
		t.Fatalf("history onto another history: %v", err)
	}
	if got := agentState(t, c3); got != other {
		t.Fatalf("a refused import changed the agent:\n%s", got)
	}
	if ch, err := c3.Definitions().Import(ctx, parsed[:1], defsync.ImportOptions{Apply: true, WithoutHistory: true}); err != nil || ch[0].Action != "unchanged" {
		t.Fatalf("without history %+v %v", ch, err)
	}
}

// Versions the scout lacks after its own newest are added, numbered on
// from it: an export of the same scout taken later brings what happened
// since. They are the import's (its author, its time), with what the
// export said of each kept in the note: an imported file does not speak
// for this agent's window.
func TestImportHistoryAddsNewerVersions(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	cfg, _ := json.Marshal(map[string]any{"path": t.TempDir()})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "One", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	early, err := c.Definitions().Export(ctx, nil, defsync.ExportOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"Two", "Three"} {
		if _, err := c.UpdateScout(defsync.WithActor(ctx, "window"), cr.Scout.ID, core.ScoutPatch{Name: &n}); err != nil {
			t.Fatal(err)
		}
	}
	late, err := c.Definitions().Export(ctx, nil, defsync.ExportOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := c.DB.ListScoutVersions(ctx, cr.Scout.ID)
	if err != nil {
		t.Fatal(err)
	}

	c2, _ := openCoreIn(t, t.TempDir())
	if _, err := c2.Definitions().Import(ctx, early, defsync.ImportOptions{Apply: true}); err != nil {
		t.Fatal(err)
	}
	plan, err := c2.Definitions().Import(ctx, late, defsync.ImportOptions{})
	if err != nil || plan[0].Action != "update" || fmt.Sprint(plan[0].PastVersions) != "[2 3]" {
		t.Fatalf("dry run %+v %v", plan, err)
	}
	ch, err := c2.Definitions().Import(ctx, late, defsync.ImportOptions{Apply: true, Actor: "cli"})
	if err != nil || ch[0].Version != 3 {
		t.Fatalf("import %+v %v", ch, err)
	}
	got, err := c2.DB.ListScoutVersions(ctx, cr.Scout.ID)
	if err != nil || len(got) != 3 {
		t.Fatalf("%d versions, %v", len(got), err)
	}
	for j, v := range got[:2] { // newest first: 3 and 2, appended
		o := orig[j]
		wantNote := fmt.Sprintf("imported version %d (by window, %s): name changed", o.Version, o.CreatedAt.UTC().Format(time.RFC3339))
		if v.Version != o.Version || v.Actor != "cli" || v.Note != wantNote || compact(v.Document) != compact(o.Document) || v.CreatedAt.Before(o.CreatedAt) {
			t.Errorf("version %d by %s at %s %q, want version %d by cli after %s %q", v.Version, v.Actor, v.CreatedAt, v.Note, o.Version, o.CreatedAt, wantNote)
		}
	}
	if v, o := got[2], orig[2]; v.Actor != o.Actor || v.Note != o.Note || !v.CreatedAt.Equal(o.CreatedAt) {
		t.Errorf("the version the scout was created with: %+v, want %+v", v, o)
	}
	if again, err := c2.Definitions().Import(ctx, late, defsync.ImportOptions{Apply: true, Actor: "cli"}); err != nil || again[0].Action != "unchanged" {
		t.Fatalf("import again %+v %v", again, err)
	}
}

// An export with history put in the definitions folder is reported, not
// applied: the file decides the definition, the agent keeps its versions.
func TestDefinitionsFolderRefusesAHistory(t *testing.T) {
	ctx := context.Background()
	defs := t.TempDir()
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs})
	text := folderDef(t, "Scans", t.TempDir()) + "history:\n  - version: 1\n    created_at: 2025-01-01T00:00:00Z\n" +
		"    document: {version: 1, kind: webhook, name: Hooks}\n"
	if err := os.WriteFile(filepath.Join(defs, "scans.yaml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	reconciled(t, c, func() bool { return len(c.Definitions().Errors()) == 1 })
	if e := c.Definitions().Errors()[0]; e.File != "scans.yaml" || !strings.Contains(e.Reason, "holds a history") {
		t.Fatalf("error %+v", e)
	}
	if list, _ := c.DB.ListScouts(ctx); len(list) != 0 {
		t.Fatalf("a file with a history made %d scouts", len(list))
	}
}
