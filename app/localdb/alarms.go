package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
)

// alarmsKept is how many resolved alarms the history keeps; live ones are
// never pruned.
const alarmsKept = 500

const alarmCols = `id, dedupe_key, kind, severity, scout_id, status, message, raised_at, updated_at, acked_at, resolved_at`

// RaiseAlarm stores a new open alarm unless one is live for its key; a live
// one has its message and severity brought up to date and is returned with
// created false.
func (d *DB) RaiseAlarm(ctx context.Context, a alarms.Alarm) (alarms.Alarm, bool, error) {
	var out alarms.Alarm
	created := false
	err := d.tx(ctx, func(tx *sql.Tx) error {
		live, err := scanAlarm(tx.QueryRowContext(ctx, `SELECT `+alarmCols+` FROM alarms WHERE dedupe_key = ? AND status <> 'resolved'`, a.Key))
		if err == nil {
			if _, err := tx.ExecContext(ctx, `UPDATE alarms SET message = ?, severity = ?, updated_at = ? WHERE id = ?`,
				a.Message, string(a.Severity), a.UpdatedAt.UnixMilli(), live.ID); err != nil {
				return fmt.Errorf("localdb: update alarm: %w", err)
			}
			live.Message, live.Severity, live.UpdatedAt = a.Message, a.Severity, a.UpdatedAt.UTC()
			out = live
			return nil
		}
		if err != sql.ErrNoRows {
			return fmt.Errorf("localdb: read alarm: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO alarms (id, dedupe_key, kind, severity, scout_id, status, message, raised_at, updated_at)
			VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?)`, a.ID, a.Key, a.Kind, string(a.Severity), a.ScoutID, a.Message,
			a.RaisedAt.UnixMilli(), a.UpdatedAt.UnixMilli()); err != nil {
			return fmt.Errorf("localdb: insert alarm: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM alarms WHERE status = 'resolved' AND id NOT IN
			(SELECT id FROM alarms WHERE status = 'resolved' ORDER BY resolved_at DESC LIMIT ?)`, alarmsKept); err != nil {
			return fmt.Errorf("localdb: prune alarms: %w", err)
		}
		a.Status, a.RaisedAt, a.UpdatedAt = alarms.Open, a.RaisedAt.UTC(), a.UpdatedAt.UTC()
		out, created = a, true
		return nil
	})
	return out, created, err
}

// ResolveAlarm resolves the live alarm for key; found is false when none
// is live.
func (d *DB) ResolveAlarm(ctx context.Context, key string, at time.Time) (alarms.Alarm, bool, error) {
	var out alarms.Alarm
	// Most calls find nothing live (each good run asks): answered from
	// the read pool, without taking the write lock.
	var n int
	if err := d.read().QueryRowContext(ctx, `SELECT COUNT(*) FROM alarms WHERE dedupe_key = ? AND status <> 'resolved'`, key).Scan(&n); err != nil {
		return out, false, fmt.Errorf("localdb: read alarm: %w", err)
	}
	if n == 0 {
		return out, false, nil
	}
	found := false
	err := d.tx(ctx, func(tx *sql.Tx) error {
		live, err := scanAlarm(tx.QueryRowContext(ctx, `SELECT `+alarmCols+` FROM alarms WHERE dedupe_key = ? AND status <> 'resolved'`, key))
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("localdb: read alarm: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE alarms SET status = 'resolved', resolved_at = ?, updated_at = ? WHERE id = ?`,
			at.UnixMilli(), at.UnixMilli(), live.ID); err != nil {
			return fmt.Errorf("localdb: resolve alarm: %w", err)
		}
		t := at.UTC()
		live.Status, live.ResolvedAt, live.UpdatedAt = alarms.Resolved, &t, t
		out, found = live, true
		return nil
	})
	return out, found, err
}

// AckAlarm acknowledges an open alarm; one already acknowledged is
// returned as it is; a resolved or unknown one is not found.
func (d *DB) AckAlarm(ctx context.Context, id string, at time.Time) (alarms.Alarm, error) {
	var out alarms.Alarm
	err := d.tx(ctx, func(tx *sql.Tx) error {
		a, err := scanAlarm(tx.QueryRowContext(ctx, `SELECT `+alarmCols+` FROM alarms WHERE id = ? AND status <> 'resolved'`, id))
		if err != nil {
			return fmt.Errorf("localdb: acknowledge alarm: %w", rowsErr(err, "alarm", id))
		}
		if a.Status == alarms.Open {
			if _, err := tx.ExecContext(ctx, `UPDATE alarms SET status = 'acknowledged', acked_at = ?, updated_at = ? WHERE id = ?`,
				at.UnixMilli(), at.UnixMilli(), id); err != nil {
				return fmt.Errorf("localdb: acknowledge alarm: %w", err)
			}
			t := at.UTC()
			a.Status, a.AckedAt, a.UpdatedAt = alarms.Acknowledged, &t, t
		}
		out = a
		return nil
	})
	return out, err
}

// ListAlarms returns the live alarms, and the resolved ones kept if asked,
// newest first.
func (d *DB) ListAlarms(ctx context.Context, withResolved bool) ([]alarms.Alarm, error) {
	q := `SELECT ` + alarmCols + ` FROM alarms WHERE status <> 'resolved' ORDER BY raised_at DESC, id`
	if withResolved {
		q = `SELECT ` + alarmCols + ` FROM alarms ORDER BY raised_at DESC, id`
	}
	rows, err := d.read().QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("localdb: list alarms: %w", err)
	}
	defer rows.Close()
	out := []alarms.Alarm{}
	for rows.Next() {
		a, err := scanAlarm(rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: list alarms: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

type rowScanner interface{ Scan(dest ...any) error }

func scanAlarm(r rowScanner) (alarms.Alarm, error) {
	var a alarms.Alarm
	var sev, st string
	var raised, updated int64
	var acked, resolved sql.NullInt64
	if err := r.Scan(&a.ID, &a.Key, &a.Kind, &sev, &a.ScoutID, &st, &a.Message, &raised, &updated, &acked, &resolved); err != nil {
		return alarms.Alarm{}, err
	}
	a.Severity, a.Status = alarms.Severity(sev), alarms.Status(st)
	a.RaisedAt, a.UpdatedAt = time.UnixMilli(raised).UTC(), time.UnixMilli(updated).UTC()
	if acked.Valid {
		t := time.UnixMilli(acked.Int64).UTC()
		a.AckedAt = &t
	}
	if resolved.Valid {
		t := time.UnixMilli(resolved.Int64).UTC()
		a.ResolvedAt = &t
	}
	return a, nil
}
