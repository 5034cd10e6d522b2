package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

// ranBy matches the scout.run event of a run (not a skip) of scoutID that
// trig started (any trigger when trig is ""), ended as outcome (any when
// "").
func ranBy(scoutID string, trig scouts.RunTrigger, outcome scouts.RunOutcome) func(scouts.Event) bool {
	return func(e scouts.Event) bool {
		d, ok := e.Data.(map[string]any)
		return e.Type == scouts.EventScoutRun && ok && d["scout_id"] == scoutID &&
			(trig == "" || d["trigger"] == trig) && d["outcome"] != scouts.RunSkipped && (outcome == "" || d["outcome"] == outcome)
	}
}

// theRun is the run an event announced, as the scout's history keeps it.
func theRun(t *testing.T, c *core.Core, e scouts.Event) scouts.Run {
	t.Helper()
	d := e.Data.(map[string]any)
	runs, err := c.ScoutRuns(context.Background(), fmt.Sprint(d["scout_id"]), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.ID == d["run_id"] {
			return r
		}
	}
	t.Fatalf("run %v is not in the history (%d runs)", d["run_id"], len(runs))
	return scouts.Run{}
}

// Each run records the definition version in force when it started: the
// scout's first run the version its creation recorded, the run after an
// edit (the scout restarted) the edit's version, and so does the next run
// asked for by hand. It records what it spent on the model, and a failed
// run its error.
func TestRunsRecordTheirVersion(t *testing.T) {
	srv := triagetest.New(catKey, catModel)
	t.Cleanup(srv.Close)
	c, sub, _ := openModelCore(t, srv, t.TempDir(), 100_000)
	ctx := context.Background()
	docs := t.TempDir()
	dropFile(t, docs, "a.txt", "Please review the contract by Friday.")
	// Settled before the scout looks: a file modified less than the
	// scout's settle time (1 ms here) before its first scan is left for
	// the next one, and under load the first scan came that soon.
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(docs, "a.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	s := folderScout(t, c, docs, scouts.Budget{})
	first := theRun(t, c, waitFor(t, sub, "the scout's first run", ranBy(s.ID, scouts.TriggerStart, "")))
	if first.Outcome != scouts.RunOK || first.DefinitionVersion != 1 || first.New != 1 || first.Seen != 1 {
		t.Fatalf("first run: %+v, want ok at version 1 with a.txt new", first)
	}
	if spent := c.BudgetStatus(ctx, s).SpentToday; !first.TokensKnown || first.Tokens <= 0 || first.Tokens != spent {
		t.Fatalf("first run spent %d tokens (known %v); the day's ledger says %d", first.Tokens, first.TokensKnown, spent)
	}

	name := "Contracts"
	if _, err := c.UpdateScout(ctx, s.ID, core.ScoutPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	restarted := theRun(t, c, waitFor(t, sub, "the run after the edit", ranBy(s.ID, scouts.TriggerStart, "")))
	if restarted.DefinitionVersion != 2 || restarted.Outcome != scouts.RunOK {
		t.Fatalf("the run after the edit: %+v, want ok at version 2", restarted)
	}
	if !c.Engine.Trigger(s.ID) {
		t.Fatal("the scout is not running")
	}
	// The folder's watch may have asked first: the runs coalesce.
	manual := theRun(t, c, waitFor(t, sub, "the run asked for by hand", ranBy(s.ID, "", scouts.RunOK)))
	if manual.DefinitionVersion != 2 || manual.Tokens != 0 || !manual.TokensKnown {
		t.Fatalf("the next run: %+v, want version 2 and no tokens spent", manual)
	}

	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	c.Engine.Trigger(s.ID)
	failed := theRun(t, c, waitFor(t, sub, "a run of the removed folder", ranBy(s.ID, "", scouts.RunFailed)))
	after, _ := c.DB.GetScout(ctx, s.ID)
	if failed.Error == "" || failed.Error != after.LastError || failed.DefinitionVersion != 2 {
		t.Fatalf("the failed run: %+v; the scout's health says %q", failed, after.LastError)
	}
	if _, err := c.ScoutRuns(ctx, "sc_missing", 0); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("the runs of a missing scout: %v", err)
	}
}

// A scout an import (or a definitions file) or a rollback changes restarts
// once its new version is recorded: the first run after it records that
// version, not the one before.
func TestRunsAfterAnImportOrARollbackRecordTheirVersion(t *testing.T) {
	srv := triagetest.New(catKey, catModel)
	t.Cleanup(srv.Close)
	c, sub, _ := openModelCore(t, srv, t.TempDir(), 100_000)
	ctx := context.Background()
	s := folderScout(t, c, t.TempDir(), scouts.Budget{})
	if first := theRun(t, c, waitFor(t, sub, "the scout's first run", ranBy(s.ID, scouts.TriggerStart, ""))); first.DefinitionVersion != 1 {
		t.Fatalf("first run: %+v, want version 1", first)
	}
	docs, err := c.Definitions().Export(ctx, []string{s.ID}, defsync.ExportOptions{})
	if err != nil || len(docs) != 1 {
		t.Fatalf("export: %v, %d documents", err, len(docs))
	}
	d := docs[0]
	d.Name = "Contracts"
	imported, err := c.Definitions().Import(ctx, []definition.Document{d}, defsync.ImportOptions{Apply: true, Actor: "file", Note: "edited"})
	if err != nil || len(imported) != 1 || imported[0].Version != 2 {
		t.Fatalf("import: %+v, %v", imported, err)
	}
	if run := theRun(t, c, waitFor(t, sub, "the run after the import", ranBy(s.ID, scouts.TriggerStart, ""))); run.DefinitionVersion != 2 {
		t.Fatalf("the run after the import: %+v, want version 2", run)
	}
	back, err := c.Definitions().Rollback(ctx, s.ID, 1, "test")
	if err != nil || back.Version != 3 {
		t.Fatalf("rollback: %+v, %v", back, err)
	}
	if run := theRun(t, c, waitFor(t, sub, "the run after the rollback", ranBy(s.ID, scouts.TriggerStart, ""))); run.DefinitionVersion != 3 {
		t.Fatalf("the run after the rollback: %+v, want version 3", run)
	}
}
