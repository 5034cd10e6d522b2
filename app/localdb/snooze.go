package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// SnoozeSuggestion puts a pending card in the Snoozed lane until until,
// with the audit entries audit gives for it, in one transaction. It teaches
// the learner nothing; the card counts as seen (opened_at), so silence
// never teaches from it either. Snoozing a snoozed card moves its time.
func (d *DB) SnoozeSuggestion(ctx context.Context, id string, until, at time.Time, audit func(scouts.Suggestion) []scouts.AuditEvent) (scouts.Suggestion, error) {
	var sug scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status != scouts.StatusPending {
			return scouts.Errorf(scouts.EConflict, "suggestion %s is already %s; only pending cards can be snoozed", id, sug.Status)
		}
		from := sug.Lane
		if from == scouts.LaneSnoozed {
			var prev sql.NullString
			if err := tx.QueryRowContext(ctx, `SELECT snoozed_from FROM suggestions WHERE id = ?`, id).Scan(&prev); err != nil {
				return fmt.Errorf("localdb: snooze: %w", err)
			}
			from = scouts.Lane(prev.String)
		}
		if !from.Valid() {
			from = scouts.LaneInbox
		}
		if sug.OpenedAt.IsZero() {
			sug.OpenedAt = at
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = 'snoozed', snoozed_until = ?, snoozed_from = ?, returned_at = NULL, opened_at = ?
			WHERE id = ? AND status = 'pending'`, until.UnixMilli(), from, sug.OpenedAt.UnixMilli(), id); err != nil {
			return fmt.Errorf("localdb: snooze: %w", err)
		}
		events := audit(sug)
		sug.Lane, sug.SnoozedUntil, sug.ReturnedAt = scouts.LaneSnoozed, until.UTC(), time.Time{}
		return insertAudit(ctx, tx, events...)
	})
	return sug, err
}

// UnsnoozeSuggestion takes a snoozed card back to the lane it was snoozed
// from, before its time, with audit's entries; changed is false when the
// card was not snoozed (it already came back).
func (d *DB) UnsnoozeSuggestion(ctx context.Context, id string, audit func(scouts.Suggestion, scouts.Lane) []scouts.AuditEvent) (scouts.Suggestion, bool, error) {
	var sug scouts.Suggestion
	var changed bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status != scouts.StatusPending || sug.Lane != scouts.LaneSnoozed {
			return nil
		}
		var prev sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT snoozed_from FROM suggestions WHERE id = ?`, id).Scan(&prev); err != nil {
			return fmt.Errorf("localdb: unsnooze: %w", err)
		}
		to := scouts.Lane(prev.String)
		if !to.Valid() {
			to = scouts.LaneInbox
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = ?, snoozed_until = NULL, snoozed_from = NULL WHERE id = ?`, to, id); err != nil {
			return fmt.Errorf("localdb: unsnooze: %w", err)
		}
		events := audit(sug, to)
		sug.Lane, sug.SnoozedUntil = to, time.Time{}
		changed = true
		return insertAudit(ctx, tx, events...)
	})
	return sug, changed, err
}

// ReturnSnoozed brings every card whose snooze ended by now back to the
// top of the inbox (returned_at = now), with audit's entries for each, in
// one transaction; it returns them. Cards an agent that was off missed are
// returned by its first call.
func (d *DB) ReturnSnoozed(ctx context.Context, now time.Time, audit func(scouts.Suggestion) []scouts.AuditEvent) ([]scouts.Suggestion, error) {
	var out []scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, `SELECT `+suggestionReadCols+` FROM suggestions
			WHERE lane = 'snoozed' AND status = 'pending' AND snoozed_until <= ? ORDER BY snoozed_until, rowid`, now.UnixMilli())
		if err != nil {
			return fmt.Errorf("localdb: return snoozed: %w", err)
		}
		for rows.Next() {
			s, err := scanSuggestion(rows)
			if err != nil {
				rows.Close()
				return fmt.Errorf("localdb: return snoozed: %w", err)
			}
			out = append(out, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("localdb: return snoozed: %w", err)
		}
		var events []scouts.AuditEvent
		for i := range out {
			s := &out[i]
			// A snoozed card does not expire (ExpireSuggestions); back, it
			// gets its whole deadline again from now, as a revived one.
			expires := now.Add(s.ExpiresAt.Sub(s.CreatedAt))
			if s.ExpiresAt.After(expires) {
				expires = s.ExpiresAt
			}
			if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = 'inbox', snoozed_until = NULL, snoozed_from = NULL, returned_at = ?, expires_at = ? WHERE id = ?`,
				now.UnixMilli(), expires.UnixMilli(), s.ID); err != nil {
				return fmt.Errorf("localdb: return snoozed: %w", err)
			}
			events = append(events, audit(*s)...)
			s.Lane, s.ReturnedAt, s.ExpiresAt = scouts.LaneInbox, now.UTC(), expires.UTC()
		}
		return insertAudit(ctx, tx, events...)
	})
	return out, err
}

// NextSnooze is when the next snoozed card or task returns; ok is false
// when none is snoozed.
func (d *DB) NextSnooze(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	if err := d.read().QueryRowContext(ctx, `SELECT MIN(t) FROM (
		SELECT MIN(snoozed_until) AS t FROM suggestions WHERE lane = 'snoozed' AND status = 'pending'
		UNION ALL SELECT MIN(snoozed_until) FROM tasks WHERE snoozed_until IS NOT NULL)`).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("localdb: next snooze: %w", err)
	}
	return store.FromMillis(next), next.Valid, nil
}
