package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
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

// AddRun records a run in its scout's history and prunes the history to
// the latest scouts.RunsKept runs, in one transaction; a run that ran
// (not skipped, not stopped) is also the scout's health, as RecordRun.
func (d *DB) AddRun(ctx context.Context, r scouts.Run) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		var tokens, version any
		if r.TokensKnown {
			tokens = r.Tokens
		}
		if r.DefinitionVersion > 0 {
			version = r.DefinitionVersion
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO scout_runs (id, scout_id, run_trigger, started_at, finished_at, outcome,
			error, note, items_seen, items_new, model_tokens, definition_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.ScoutID, string(r.Trigger), r.StartedAt.UnixMilli(), r.FinishedAt.UnixMilli(), string(r.Outcome),
			r.Error, r.Note, r.Seen, r.New, tokens, version); err != nil {
			return fmt.Errorf("localdb: add run: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM scout_runs WHERE id IN (SELECT id FROM scout_runs WHERE scout_id = ?
			ORDER BY started_at DESC, rowid DESC LIMIT -1 OFFSET ?)`, r.ScoutID, scouts.RunsKept); err != nil {
			return fmt.Errorf("localdb: prune runs: %w", err)
		}
		if r.Outcome != scouts.RunOK && r.Outcome != scouts.RunFailed {
			return nil
		}
		return recordHealth(ctx, tx, r.ScoutID, scouts.RunResult{At: r.FinishedAt, New: r.New, Error: r.Error})
	})
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
		var started, finished int64
		var tokens, version sql.NullInt64
		if err := rows.Scan(&r.ID, &r.ScoutID, &trig, &started, &finished, &outcome, &r.Error, &r.Note,
			&r.Seen, &r.New, &tokens, &version); err != nil {
			return nil, fmt.Errorf("localdb: list runs: %w", err)
		}
		r.Trigger, r.Outcome = scouts.RunTrigger(trig), scouts.RunOutcome(outcome)
		r.StartedAt, r.FinishedAt = time.UnixMilli(started).UTC(), time.UnixMilli(finished).UTC()
		r.Tokens, r.TokensKnown = int(tokens.Int64), tokens.Valid
		r.DefinitionVersion = int(version.Int64)
		out = append(out, r)
	}
	return out, rows.Err()
}
