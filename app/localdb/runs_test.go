package localdb_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/procid"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// A scout's history keeps its latest RunsKept runs, pruned as each is
// recorded, without touching another scout's; a skipped run is kept but is
// not the scout's health, a run that ran is.
func TestRunHistoryPruned(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "scouts.db"))
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, id := range []string{"sc_a", "sc_b"} {
		if err := db.CreateScout(ctx, scouts.Scout{ID: id, Kind: scouts.KindFolder, Name: id, Config: []byte(`{}`), CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	run := func(scout string, i int, outcome scouts.RunOutcome) scouts.Run {
		start := at.Add(time.Duration(i) * time.Minute)
		return scouts.Run{ID: fmt.Sprintf("rn_%s_%04d", scout, i), ScoutID: scout, Trigger: scouts.TriggerSchedule, StartedAt: start,
			FinishedAt: start.Add(time.Second), Outcome: outcome, Seen: i, New: 1, Tokens: 10 * i, TokensKnown: true, DefinitionVersion: 1 + i/100}
	}
	if err := db.AddRun(ctx, run("sc_b", 0, scouts.RunOK)); err != nil {
		t.Fatal(err)
	}
	total := scouts.RunsKept + 5
	for i := range total {
		if err := db.AddRun(ctx, run("sc_a", i, scouts.RunOK)); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.ListRuns(ctx, "sc_a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != scouts.RunsKept {
		t.Fatalf("%d runs kept, want %d", len(list), scouts.RunsKept)
	}
	newest, oldest := list[0], list[len(list)-1]
	if want := run("sc_a", total-1, scouts.RunOK); newest != want {
		t.Fatalf("newest run:\n got %+v\nwant %+v", newest, want)
	}
	if oldest.ID != run("sc_a", 5, scouts.RunOK).ID {
		t.Fatalf("oldest run kept: %s, want the sixth recorded", oldest.ID)
	}
	if b, err := db.ListRuns(ctx, "sc_b", 0); err != nil || len(b) != 1 {
		t.Fatalf("the other scout's runs: %d %v, want its one run", len(b), err)
	}
	if top, err := db.ListRuns(ctx, "sc_a", 3); err != nil || len(top) != 3 || top[0].ID != newest.ID {
		t.Fatalf("the latest 3: %+v %v", top, err)
	}

	sc, err := db.GetScout(ctx, "sc_a")
	if err != nil {
		t.Fatal(err)
	}
	skipped := run("sc_a", total, scouts.RunSkipped)
	skipped.New = 0
	if err := db.AddRun(ctx, skipped); err != nil {
		t.Fatal(err)
	}
	after, _ := db.GetScout(ctx, "sc_a")
	if !after.LastRunAt.Equal(sc.LastRunAt) || after.TotalNew != total {
		t.Fatalf("a skipped run changed the health: last run %v → %v, total %d (want %d)", sc.LastRunAt, after.LastRunAt, after.TotalNew, total)
	}
	// Unknown tokens and no version read back as such.
	bare := scouts.Run{ID: "rn_bare", ScoutID: "sc_b", Trigger: scouts.TriggerManual, StartedAt: at.Add(time.Hour), FinishedAt: at.Add(time.Hour),
		Outcome: scouts.RunFailed, Error: "the folder is gone"}
	if err := db.AddRun(ctx, bare); err != nil {
		t.Fatal(err)
	}
	if b, _ := db.ListRuns(ctx, "sc_b", 1); len(b) != 1 || b[0] != bare {
		t.Fatalf("a run without tokens or version: %+v, want %+v", b, bare)
	}
	if b, _ := db.GetScout(ctx, "sc_b"); b.LastError != bare.Error {
		t.Fatalf("a failed run is not the scout's health: %q", b.LastError)
	}
}

// A run is in the history from its start, running, and finished in place
// when it ends. At the next start, a run whose process is gone (the agent
// was killed) is kept as interrupted, saying so; a run of this process,
// or of another one still alive, stays running.
func TestRunsLeftRunningByADeadAgent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scouts.db")
	db := openDB(t, path)
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := db.CreateScout(ctx, scouts.Scout{ID: "sc_a", Kind: scouts.KindFolder, Name: "a", Config: []byte(`{}`), CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	started := func(id string, minute int) scouts.Run {
		return scouts.Run{ID: id, ScoutID: "sc_a", Trigger: scouts.TriggerManual, StartedAt: at.Add(time.Duration(minute) * time.Minute),
			DefinitionVersion: 3}
	}
	mine := started("rn_mine", 0)
	if err := db.StartRun(ctx, mine); err != nil {
		t.Fatal(err)
	}
	list, err := db.ListRuns(ctx, "sc_a", 0)
	if err != nil || len(list) != 1 || list[0].Outcome != scouts.RunRunning || !list[0].FinishedAt.IsZero() || list[0].DefinitionVersion != 3 {
		t.Fatalf("a run started: %+v %v, want it running, not finished, at version 3", list, err)
	}

	// A process that ran and is gone, as a killed agent.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	self := procid.Self()
	if err := db.StartRunIn(ctx, started("rn_killed", 1), localdb.LockHolder{PID: dead.Process.Pid, BootID: self.BootID, Start: 1}); err != nil {
		t.Fatal(err)
	}
	alive := "rn_alive"
	if self.BootID != "" {
		// A process still running (procid tells only where it reads /proc).
		sleeper := exec.Command("sleep", "600")
		if err := sleeper.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
		if err := db.StartRunIn(ctx, started(alive, 2), localdb.LockHolder{PID: sleeper.Process.Pid, BootID: self.BootID}); err != nil {
			t.Fatal(err)
		}
	}

	cut, err := db.InterruptRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cut) != 1 || cut[0].ID != "rn_killed" || cut[0].ScoutID != "sc_a" {
		t.Fatalf("interrupted: %+v, want the killed process's run alone", cut)
	}
	byID := map[string]scouts.Run{}
	list, _ = db.ListRuns(ctx, "sc_a", 0)
	for _, r := range list {
		byID[r.ID] = r
	}
	killed := byID["rn_killed"]
	if killed.Outcome != scouts.RunInterrupted || !killed.FinishedAt.IsZero() || killed.DefinitionVersion != 3 ||
		!strings.Contains(killed.Note, fmt.Sprintf("process %d", dead.Process.Pid)) || !strings.Contains(killed.Note, "stopped before this run ended") {
		t.Fatalf("the killed agent's run: %+v, want interrupted, naming its process", killed)
	}
	if byID["rn_mine"].Outcome != scouts.RunRunning {
		t.Fatalf("this process's run: %+v, want it still running", byID["rn_mine"])
	}
	if r, ok := byID[alive]; self.BootID != "" && (!ok || r.Outcome != scouts.RunRunning) {
		t.Fatalf("a live process's run: %+v, want it still running", r)
	}
	if again, err := db.InterruptRuns(ctx); err != nil || len(again) != 0 {
		t.Fatalf("a second look: %+v %v, want nothing more", again, err)
	}

	// This process's run ends: the same row, finished, and the health.
	mine.FinishedAt, mine.Outcome, mine.Seen, mine.New = mine.StartedAt.Add(time.Second), scouts.RunOK, 4, 2
	if err := db.AddRun(ctx, mine); err != nil {
		t.Fatal(err)
	}
	list, _ = db.ListRuns(ctx, "sc_a", 0)
	var finished []scouts.Run
	for _, r := range list {
		if r.ID == "rn_mine" {
			finished = append(finished, r)
		}
	}
	if len(finished) != 1 || finished[0].Outcome != scouts.RunOK || !finished[0].FinishedAt.Equal(mine.FinishedAt) || finished[0].New != 2 {
		t.Fatalf("the run ended: %+v, want one row, ok, finished, 2 new", finished)
	}
	if sc, _ := db.GetScout(ctx, "sc_a"); sc.LastRunNew != 2 {
		t.Fatalf("health: last run found %d, want 2", sc.LastRunNew)
	}
}

// The runs a database kept before runs were recorded from their start
// come through the migration as they were: finished, in their order.
func TestRunsKeptAcrossTheRunningMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scouts.db")
	old := fstest.MapFS{}
	entries, err := fs.ReadDir(os.DirFS("migrations"), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() < "0009" {
			b, err := os.ReadFile(filepath.Join("migrations", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			old[e.Name()] = &fstest.MapFile{Data: b}
		}
	}
	sdb, err := store.OpenSQLite(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Migrate(ctx, old); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO scouts (id, kind, name, config, created_at, updated_at) VALUES ('sc_a', 'folder', 'a', '{}', 0, 0)`,
		// Two in one millisecond: the one recorded last lists first.
		`INSERT INTO scout_runs (id, scout_id, run_trigger, started_at, finished_at, outcome, items_new, model_tokens)
			VALUES ('rn_2', 'sc_a', 'manual', 1000, 2000, 'ok', 3, 40)`,
		`INSERT INTO scout_runs (id, scout_id, run_trigger, started_at, finished_at, outcome, error)
			VALUES ('rn_1', 'sc_a', 'schedule', 1000, 1500, 'failed', 'gone')`,
	} {
		if _, err := sdb.Writer().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	sdb.Close()
	db := openDB(t, path)
	list, err := db.ListRuns(ctx, "sc_a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != "rn_1" || list[0].Error != "gone" || list[0].FinishedAt.UnixMilli() != 1500 ||
		list[1].ID != "rn_2" || list[1].Outcome != scouts.RunOK || list[1].New != 3 || !list[1].TokensKnown || list[1].Tokens != 40 {
		t.Fatalf("runs after the migration: %+v", list)
	}
	if cut, err := db.InterruptRuns(ctx); err != nil || len(cut) != 0 {
		t.Fatalf("finished runs taken as interrupted: %+v %v", cut, err)
	}
}
