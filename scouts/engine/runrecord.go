package engine

import (
	"context"

	"github.com/scouts-hq/scouts/scouts"
)

// startRun is a run of the scout that starts now, with the definition
// version in force (read now, not when the runner started: a rule changed
// since is part of what this run runs).
func (e *Engine) startRun(ctx context.Context, scoutID string, trig scouts.RunTrigger) scouts.Run {
	run := scouts.Run{ID: scouts.NewID("rn"), ScoutID: scoutID, Trigger: trig, StartedAt: e.cfg.Now()}
	v, err := e.cfg.Store.DefinitionVersion(context.WithoutCancel(ctx), scoutID)
	if err != nil {
		e.log.Warn("read the scout's definition version for its run", "scout", scoutID, "err", err)
	}
	run.DefinitionVersion = v
	return run
}

// beginRun records a run as running, so that the history keeps it even
// if the agent dies before it ends.
func (e *Engine) beginRun(ctx context.Context, run scouts.Run) {
	if err := e.cfg.Store.StartRun(context.WithoutCancel(ctx), run); err != nil {
		e.log.Warn("record scout run start", "scout", run.ScoutID, "err", err)
	}
}

// storeRun records a finished run in the scout's history (and, unless it
// was skipped or stopped, in its health) and returns it as finished; the
// caller announces it once everything the announcement implies is true.
func (e *Engine) storeRun(ctx context.Context, run scouts.Run) scouts.Run {
	run.FinishedAt = e.cfg.Now()
	if err := e.cfg.Store.AddRun(context.WithoutCancel(ctx), run); err != nil {
		e.log.Error("record scout run", "scout", run.ScoutID, "err", err)
	}
	return run
}

// announceRun tells the window a run ended. A window answers it by reading
// the scout again (its health, its runs in progress, its lock), so it is
// sent only once those say the run is over.
func (e *Engine) announceRun(run scouts.Run) {
	e.emit(scouts.Event{Type: scouts.EventScoutRun, Data: map[string]any{"scout_id": run.ScoutID, "new": run.New, "error": run.Error,
		"run_id": run.ID, "trigger": run.Trigger, "outcome": run.Outcome, "definition_version": run.DefinitionVersion}})
}

// skippedRun records a run that did not happen, and why.
func (e *Engine) skippedRun(scoutID string, trig scouts.RunTrigger, why string) {
	e.announceRun(e.storeSkipped(scoutID, trig, why))
}

// storeSkipped records a run that did not happen, and why, for the caller
// to announce.
func (e *Engine) storeSkipped(scoutID string, trig scouts.RunTrigger, why string) scouts.Run {
	ctx := context.Background()
	run := e.startRun(ctx, scoutID, trig)
	run.Outcome, run.Note = scouts.RunSkipped, why
	return e.storeRun(ctx, run)
}
