package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/app/procid"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// DefinitionVersion is a scout's current definition version (0: none
// recorded yet).
func (d *DB) DefinitionVersion(ctx context.Context, scoutID string) (int, error) {
	var v int
	err := d.read().QueryRowContext(ctx, `SELECT definition_version FROM scouts WHERE id = ?`, scoutID).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("localdb: definition version: %w", rowsErr(err, "scout", scoutID))
	}
	return v, nil
}

// StartRun records a run as running: its row exists from its start, so
// that a run cut short by a crash stays in the history (InterruptRuns
// finds it at the next start). AddRun finishes it in place. The history
// is pruned here too: a run started is one more run kept.
func (d *DB) StartRun(ctx context.Context, r scouts.Run) error {
	return d.startRun(ctx, r, d.self)
}

// startRun records a run as running in process p.
func (d *DB) startRun(ctx context.Context, r scouts.Run, p LockHolder) error {
	runner, _ := json.Marshal(p)
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO scout_runs (id, scout_id, run_trigger, started_at, outcome,
			definition_version, runner) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.ScoutID, string(r.Trigger), r.StartedAt.UnixMilli(), string(scouts.RunRunning),
			nullIfZero(r.DefinitionVersion), string(runner)); err != nil {
			return fmt.Errorf("localdb: start run: %w", err)
		}
		return pruneRuns(ctx, tx, r.ScoutID)
	})
}

// AddRun records a finished run in its scout's history — the row StartRun
// wrote, finished in place, or a new one (a skipped run) — and prunes the
// history to the latest scouts.RunsKept runs, in one transaction; a run
// that ran (not skipped, not stopped) is also the scout's health, as
// RecordRun.
func (d *DB) AddRun(ctx context.Context, r scouts.Run) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var tokens any
		if r.TokensKnown {
			tokens = r.Tokens
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO scout_runs (id, scout_id, run_trigger, started_at, finished_at, outcome,
			error, note, items_seen, items_new, model_tokens, definition_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET finished_at = excluded.finished_at, outcome = excluded.outcome, error = excluded.error,
			note = excluded.note, items_seen = excluded.items_seen, items_new = excluded.items_new,
			model_tokens = excluded.model_tokens, definition_version = excluded.definition_version`,
			r.ID, r.ScoutID, string(r.Trigger), r.StartedAt.UnixMilli(), r.FinishedAt.UnixMilli(), string(r.Outcome),
			r.Error, r.Note, r.Seen, r.New, tokens, nullIfZero(r.DefinitionVersion)); err != nil {
			return fmt.Errorf("localdb: add run: %w", err)
		}
		if err := pruneRuns(ctx, tx, r.ScoutID); err != nil {
			return err
		}
		if r.Outcome != scouts.RunOK && r.Outcome != scouts.RunFailed {
			return nil
		}
		return recordHealth(ctx, tx, r.ScoutID, engine.RunResult{At: r.FinishedAt, New: r.New, Error: r.Error})
	})
}

// pruneRuns keeps a scout's latest scouts.RunsKept runs.
func pruneRuns(ctx context.Context, tx *sql.Tx, scoutID string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM scout_runs WHERE id IN (SELECT id FROM scout_runs WHERE scout_id = ?
		ORDER BY started_at DESC, rowid DESC LIMIT -1 OFFSET ?)`, scoutID, scouts.RunsKept); err != nil {
		return fmt.Errorf("localdb: prune runs: %w", err)
	}
	return nil
}

// nullIfZero stores 0 (a scout without a version yet) as NULL.
func nullIfZero(v int) any {
	if v > 0 {
		return v
	}
	return nil
}

// InterruptRuns marks interrupted the runs still recorded as running whose
// process is gone — the agent was killed, crashed or the machine went
// down before they ended — each with a note saying so, and returns them.
// A run of this process, or of another one still alive, is left running.
// Where a process cannot be told dead (no /proc), the run of another one
// is taken as interrupted: the agent calls this at its start, holding
// its data directory's lock, so no other agent runs scouts here.
func (d *DB) InterruptRuns(ctx context.Context) ([]scouts.Run, error) {
	var out []scouts.Run
	err := d.tx(ctx, func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.QueryContext(ctx, `SELECT id, scout_id, runner FROM scout_runs WHERE outcome = ?`, string(scouts.RunRunning))
		if err != nil {
			return err
		}
		type left struct{ id, scout, note string }
		var found []left
		for rows.Next() {
			var l left
			var raw string
			if err := rows.Scan(&l.id, &l.scout, &raw); err != nil {
				rows.Close()
				return err
			}
			var h LockHolder
			json.Unmarshal([]byte(raw), &h)
			if h.PID == d.self.PID && h.BootID == d.self.BootID && h.Start == d.self.Start {
				continue
			}
			gone, why := procid.Gone(procid.ID{PID: h.PID, BootID: h.BootID, Start: h.Start})
			if !gone {
				if h.BootID != "" && d.self.BootID != "" {
					continue // alive: it may still be running
				}
				why = fmt.Sprintf("process %d no longer runs it", h.PID)
			}
			l.note = "The agent stopped before this run ended (" + why + "): it was killed, it crashed or the machine went down. " +
				"Its cursor did not move: the next run reads the same items again."
			found = append(found, l)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		for _, l := range found {
			if _, err := tx.ExecContext(ctx, `UPDATE scout_runs SET outcome = ?, note = ? WHERE id = ? AND outcome = ?`,
				string(scouts.RunInterrupted), l.note, l.id, string(scouts.RunRunning)); err != nil {
				return err
			}
			out = append(out, scouts.Run{ID: l.id, ScoutID: l.scout, Outcome: scouts.RunInterrupted, Note: l.note})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("localdb: interrupted runs: %w", err)
	}
	return out, nil
}

// ListRuns returns a scout's latest runs, newest first (limit <= 0: every
// run kept).
func (d *DB) ListRuns(ctx context.Context, scoutID string, limit int) ([]scouts.Run, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := d.read().QueryContext(ctx, `SELECT id, scout_id, run_trigger, started_at, finished_at, outcome, error, note,
		items_seen, items_new, model_tokens, definition_version FROM scout_runs WHERE scout_id = ?
		ORDER BY started_at DESC, rowid DESC LIMIT ?`, scoutID, limit)
	if err != nil {
		return nil, fmt.Errorf("localdb: list runs: %w", err)
	}
	defer rows.Close()
	var out []scouts.Run
	for rows.Next() {
		var r scouts.Run
		var trig, outcome string
		var started int64
		var finished, tokens, version sql.NullInt64
		if err := rows.Scan(&r.ID, &r.ScoutID, &trig, &started, &finished, &outcome, &r.Error, &r.Note,
			&r.Seen, &r.New, &tokens, &version); err != nil {
			return nil, fmt.Errorf("localdb: list runs: %w", err)
		}
		r.Trigger, r.Outcome = scouts.RunTrigger(trig), scouts.RunOutcome(outcome)
		r.StartedAt = time.UnixMilli(started).UTC()
		if finished.Valid { // not while it runs, nor once interrupted
			r.FinishedAt = time.UnixMilli(finished.Int64).UTC()
		}
		r.Tokens, r.TokensKnown = int(tokens.Int64), tokens.Valid
		r.DefinitionVersion = int(version.Int64)
		out = append(out, r)
	}
	return out, rows.Err()
}
