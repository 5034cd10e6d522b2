package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/store"
)

const scoutCols = `id, kind, name, enabled, review, config, created_at, updated_at,
	last_run_at, last_success, last_error, last_run_new, total_new, schedule, budget, write_scope`

func scanScout(row interface{ Scan(...any) error }) (scouts.Scout, error) {
	var s scouts.Scout
	var cfg string
	var created, updated int64
	var lastRun, lastOK sql.NullInt64
	var sched, budget, scope string
	err := row.Scan(&s.ID, &s.Kind, &s.Name, &s.Enabled, &s.Review, &cfg, &created, &updated,
		&lastRun, &lastOK, &s.LastError, &s.LastRunNew, &s.TotalNew, &sched, &budget, &scope)
	if err != nil {
		return s, err
	}
	if s.Schedule, s.Budget, err = decodeRunSettings(sched, budget); err != nil {
		return s, fmt.Errorf("scout %s: %w", s.ID, err)
	}
	if s.WriteScope, err = decodeWriteScope(scope); err != nil {
		return s, fmt.Errorf("scout %s: %w", s.ID, err)
	}
	s.Config = []byte(cfg)
	s.CreatedAt = time.UnixMilli(created).UTC()
	s.UpdatedAt = time.UnixMilli(updated).UTC()
	s.LastRunAt = store.FromMillis(lastRun)
	s.LastSuccess = store.FromMillis(lastOK)
	return s, nil
}

func configText(s scouts.Scout) string {
	if len(s.Config) == 0 {
		return "{}"
	}
	return string(s.Config)
}

// CreateScout stores a new scout.
func (d *DB) CreateScout(ctx context.Context, s scouts.Scout) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		sched, budget := encodeRunSettings(s)
		_, err := tx.ExecContext(ctx, `INSERT INTO scouts (id, kind, name, enabled, review, config, created_at, updated_at, schedule, budget, write_scope)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.Kind, s.Name, s.Enabled, s.Review, configText(s), s.CreatedAt.UnixMilli(), s.UpdatedAt.UnixMilli(), sched, budget, encodeWriteScope(s.WriteScope))
		if err != nil {
			return fmt.Errorf("localdb: create scout: %w", err)
		}
		return nil
	})
}

// UpdateScout stores a scout's editable fields.
func (d *DB) UpdateScout(ctx context.Context, s scouts.Scout) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		sched, budget := encodeRunSettings(s)
		res, err := tx.ExecContext(ctx, `UPDATE scouts SET name = ?, enabled = ?, review = ?, config = ?, updated_at = ?, schedule = ?, budget = ?, write_scope = ?
			WHERE id = ? AND deleted_at IS NULL`,
			s.Name, s.Enabled, s.Review, configText(s), s.UpdatedAt.UnixMilli(), sched, budget, encodeWriteScope(s.WriteScope), s.ID)
		if err != nil {
			return fmt.Errorf("localdb: update scout: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("scout", s.ID)
		}
		return nil
	})
}

// DeleteScout hides a scout and forgets its cursor and its undecided
// suggestions. The row itself stays so that approved and rejected
// suggestions, and the entities they became, keep their provenance.
func (d *DB) DeleteScout(ctx context.Context, id string, at time.Time) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE scouts SET deleted_at = ?, enabled = 0 WHERE id = ? AND deleted_at IS NULL`, at.UnixMilli(), id)
		if err != nil {
			return fmt.Errorf("localdb: delete scout: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("scout", id)
		}
		for _, q := range []string{
			`DELETE FROM suggestions WHERE scout_id = ? AND status = 'pending'`,
			`DELETE FROM folder_entries WHERE scout_id = ?`,
			`DELETE FROM scout_cursors WHERE scout_id = ?`,
			`DELETE FROM run_locks WHERE scout_id = ?`,
			`DELETE FROM schedule_state WHERE scout_id = ?`,
			`DELETE FROM gmail_awaiting WHERE scout_id = ?`,
			`DELETE FROM identity_seen WHERE scout_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return fmt.Errorf("localdb: delete scout: %w", err)
			}
		}
		// Its overrides go with it; actions that have not run cannot any
		// more (they act through the scout's account or folder).
		if _, err := tx.ExecContext(ctx, `DELETE FROM action_policies WHERE scope = ?`, id); err != nil {
			return fmt.Errorf("localdb: delete scout: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE actions SET state = 'cancelled', updated_at = ? WHERE scout_id = ? AND state IN ('queued', 'failed')`,
			at.UnixMilli(), id); err != nil {
			return fmt.Errorf("localdb: delete scout: %w", err)
		}
		return nil
	})
}

// GetScout returns one scout.
func (d *DB) GetScout(ctx context.Context, id string) (scouts.Scout, error) {
	s, err := scanScout(d.read().QueryRowContext(ctx, `SELECT `+scoutCols+` FROM scouts WHERE id = ? AND deleted_at IS NULL`, id))
	if err != nil {
		return s, rowsErr(err, "scout", id)
	}
	return s, nil
}

// ListScouts returns every scout, oldest first.
func (d *DB) ListScouts(ctx context.Context) ([]scouts.Scout, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT `+scoutCols+` FROM scouts WHERE deleted_at IS NULL ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("localdb: list scouts: %w", err)
	}
	defer rows.Close()
	var out []scouts.Scout
	for rows.Next() {
		s, err := scanScout(rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: list scouts: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RecordRun stores the outcome of a scout run.
func (d *DB) RecordRun(ctx context.Context, scoutID string, r engine.RunResult) error {
	return d.tx(ctx, func(tx *sql.Tx) error { return recordHealth(ctx, tx, scoutID, r) })
}

// recordHealth makes r the scout's last run, for its health display.
func recordHealth(ctx context.Context, tx *sql.Tx, scoutID string, r engine.RunResult) error {
	var ok any
	if r.Error == "" {
		ok = r.At.UnixMilli()
	}
	_, err := tx.ExecContext(ctx, `UPDATE scouts SET last_run_at = ?, last_error = ?, last_run_new = ?,
		total_new = total_new + ?, last_success = COALESCE(?, last_success) WHERE id = ?`,
		r.At.UnixMilli(), r.Error, r.New, r.New, ok, scoutID)
	if err != nil {
		return fmt.Errorf("localdb: record run: %w", err)
	}
	return nil
}
