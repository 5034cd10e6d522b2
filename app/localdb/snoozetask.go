package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// SnoozeTask hides an open task from the lists of tasks until until, with
// audit's entries, in one transaction (migration 0015's
// tasks.snoozed_until).
func (d *DB) SnoozeTask(ctx context.Context, id string, until time.Time, audit func(scouts.Entity) []scouts.AuditEvent) (scouts.Entity, error) {
	var ent scouts.Entity
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		ent, err = getEntity(ctx, tx, scouts.EntityTask, id)
		if err != nil {
			return err
		}
		if ent.Done {
			return scouts.Errorf(scouts.EConflict, "task %s is done; only open tasks can be snoozed", id)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET snoozed_until = ? WHERE id = ?`, until.UnixMilli(), id); err != nil {
			return fmt.Errorf("localdb: snooze task: %w", err)
		}
		return insertAudit(ctx, tx, audit(ent)...)
	})
	return ent, err
}

// TaskSnoozedUntil is when a snoozed task returns; zero when it is not
// snoozed.
func (d *DB) TaskSnoozedUntil(ctx context.Context, id string) (time.Time, error) {
	var v sql.NullInt64
	if err := d.read().QueryRowContext(ctx, `SELECT snoozed_until FROM tasks WHERE id = ?`, id).Scan(&v); err != nil {
		return time.Time{}, rowsErr(err, "task", id)
	}
	if !v.Valid {
		return time.Time{}, nil
	}
	return time.UnixMilli(v.Int64).UTC(), nil
}

// ReturnSnoozedTasks shows again every task whose snooze ended by now,
// with audit's entries, and returns them.
func (d *DB) ReturnSnoozedTasks(ctx context.Context, now time.Time, audit func(scouts.Entity) []scouts.AuditEvent) ([]scouts.Entity, error) {
	var out []scouts.Entity
	err := d.tx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, `SELECT id FROM tasks WHERE snoozed_until IS NOT NULL AND snoozed_until <= ? ORDER BY snoozed_until, id`, now.UnixMilli())
		if err != nil {
			return fmt.Errorf("localdb: return snoozed tasks: %w", err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("localdb: return snoozed tasks: %w", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("localdb: return snoozed tasks: %w", err)
		}
		var events []scouts.AuditEvent
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE tasks SET snoozed_until = NULL WHERE id = ?`, id); err != nil {
				return fmt.Errorf("localdb: return snoozed tasks: %w", err)
			}
			e, err := getEntity(ctx, tx, scouts.EntityTask, id)
			if err != nil {
				return err
			}
			out = append(out, e)
			events = append(events, audit(e)...)
		}
		return insertAudit(ctx, tx, events...)
	})
	return out, err
}
