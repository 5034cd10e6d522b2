package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// runs is the scout's run history, newest first.
func (h *runHarness) runs() []scouts.Run {
	h.t.Helper()
	list, err := h.db.ListRuns(context.Background(), h.scout.ID, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return list
}

// newVersion records a new version of the scout's definition, as an edit
// does, and returns it.
func (h *runHarness) newVersion(note string) int {
	h.t.Helper()
	v, added, err := h.db.AddScoutVersion(context.Background(), localdb.ScoutVersion{ScoutID: h.scout.ID,
		Document: fmt.Appendf(nil, `{"name": %q}`, note), CreatedAt: *h.now.Load(), Actor: "test", Note: note})
	if err != nil || !added {
		h.t.Fatalf("record a version: %d %v %v", v, added, err)
	}
	return v
}

// ended says whether the history holds n runs, the newest one ended.
func (h *runHarness) ended(n int) func() bool {
	return func() bool {
		runs := h.runs()
		return len(runs) == n && runs[0].Outcome != scouts.RunRunning
	}
}

// Each run is kept with what started it, what it found and the definition
// version in force when it started: after an edit, the next run has the
// new one. A failed run is kept with its error, and is the scout's health.
func TestRunHistory(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{}, "a", "b")
	v1 := h.newVersion("first")
	h.start()
	h.waitStarted("the start's run")
	// In the history from its start: a crash now would leave it there.
	if runs := h.runs(); len(runs) != 1 || runs[0].Outcome != scouts.RunRunning || !runs[0].FinishedAt.IsZero() ||
		runs[0].Trigger != scouts.TriggerStart || runs[0].DefinitionVersion != v1 {
		t.Fatalf("while the start's run runs: %+v, want it running, unfinished, at version %d", runs, v1)
	}
	h.src.release <- struct{}{}
	h.until("the start's run in the history", h.ended(1))
	r := h.runs()[0]
	if r.Trigger != scouts.TriggerStart || r.Outcome != scouts.RunOK || r.Seen != 2 || r.New != 2 || r.DefinitionVersion != v1 ||
		r.Error != "" || r.TokensKnown || r.FinishedAt.Before(r.StartedAt) {
		t.Fatalf("the start's run: %+v, want start, ok, 2 seen, 2 new, version %d, no tokens known", r, v1)
	}

	v2 := h.newVersion("edited")
	h.engine.Trigger(h.scout.ID)
	h.waitStarted("the manual run")
	h.src.release <- struct{}{}
	h.until("the manual run in the history", h.ended(2))
	r = h.runs()[0]
	if r.Trigger != scouts.TriggerManual || r.Outcome != scouts.RunOK || r.DefinitionVersion != v2 || r.Seen != 0 || r.New != 0 {
		t.Fatalf("the run after the edit: %+v, want manual, ok, version %d, nothing seen", r, v2)
	}

	boom := errors.New("the folder is gone")
	h.src.fail.Store(&boom)
	h.engine.Trigger(h.scout.ID)
	h.waitStarted("the failing run")
	h.src.release <- struct{}{}
	h.until("the failed run in the history", h.ended(3))
	r = h.runs()[0]
	if r.Outcome != scouts.RunFailed || r.Error != boom.Error() || r.DefinitionVersion != v2 {
		t.Fatalf("the failed run: %+v, want failed with %q at version %d", r, boom, v2)
	}
	sc, err := h.db.GetScout(context.Background(), h.scout.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sc.LastError != boom.Error() || sc.TotalNew != 2 {
		t.Fatalf("health: last error %q, total %d; want the run's error and 2", sc.LastError, sc.TotalNew)
	}
	// The older runs are as they were.
	if got := h.runs(); got[1].DefinitionVersion != v2 || got[2].DefinitionVersion != v1 {
		t.Fatalf("older runs' versions: %d, %d; want %d, %d", got[1].DefinitionVersion, got[2].DefinitionVersion, v2, v1)
	}
}

// Under skip, the triggers that came during a run are one skipped run in
// the history (not one per trigger), saying why, before the run itself.
func TestRunHistorySkipped(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{Overlap: scouts.OverlapSkip}, "a")
	h.start()
	h.waitStarted("the start's run")
	for range 5 {
		h.engine.Trigger(h.scout.ID)
	}
	h.src.release <- struct{}{}
	h.until("the scout to be idle", h.idle)
	h.until("the run in the history", func() bool { return len(h.runs()) == 2 })
	// Both started at the test's one instant: told apart by outcome.
	runs := h.runs()
	skipped, ran := runs[0], runs[1]
	if skipped.Outcome != scouts.RunSkipped {
		skipped, ran = ran, skipped
	}
	if skipped.Outcome != scouts.RunSkipped || skipped.Trigger != scouts.TriggerManual || !strings.Contains(skipped.Note, "overlap policy is skip") {
		t.Fatalf("skipped: %+v, want a manual trigger skipped, naming the policy", skipped)
	}
	if ran.Outcome != scouts.RunOK || ran.Trigger != scouts.TriggerStart || ran.New != 1 {
		t.Fatalf("the run: %+v", ran)
	}
	sc, _ := h.db.GetScout(context.Background(), h.scout.ID)
	if sc.LastRunNew != 1 {
		t.Fatalf("the skip became the scout's health: last run found %d, want 1", sc.LastRunNew)
	}
}

// A run cut short because the scout stopped (here: disabled) is kept as
// stopped, without counting as the scout's health.
func TestRunHistoryStopped(t *testing.T) {
	h := newRunHarness(t, scouts.Schedule{}, "a")
	h.start()
	h.waitStarted("the start's run")
	off := h.scout
	off.Enabled = false
	off.UpdatedAt = off.UpdatedAt.Add(1)
	h.engine.Sync(off)
	runs := h.runs()
	if len(runs) != 1 || runs[0].Outcome != scouts.RunStopped || runs[0].Trigger != scouts.TriggerStart {
		t.Fatalf("runs: %+v, want the start's run, stopped", runs)
	}
	if n := h.suggestions(); n != 0 {
		t.Fatalf("%d suggestions from a stopped run", n)
	}
}
