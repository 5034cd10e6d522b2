package localdb_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
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
