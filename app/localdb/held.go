package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Pending caps (issue 20, item 6; docs/definitions.md, "learning"): a
// scout's cards past its cap wait in lane 'held', in the database, and are
// let in oldest first as cards are decided.

// HoldIfOver holds the pending card id when its scout has more than cap
// pending cards outside the held lane (the card itself counted): it moves
// to lane 'held', remembering its lane. held is false when there was room
// (or the card is no longer pending).
func (d *DB) HoldIfOver(ctx context.Context, id string, cap int) (sug scouts.Suggestion, held bool, err error) {
	// Every new card asks: under the cap (nearly always) it is answered
	// from the read pool, without the write lock. The count is read again
	// in the transaction.
	var n int
	if err := d.read().QueryRowContext(ctx, `SELECT COUNT(*) FROM suggestions WHERE scout_id = (SELECT scout_id FROM suggestions WHERE id = ?)
		AND status = 'pending' AND lane <> 'held'`, id).Scan(&n); err != nil {
		return sug, false, fmt.Errorf("localdb: count pending: %w", err)
	}
	if n <= cap {
		return sug, false, nil
	}
	err = d.tx(ctx, func(tx *sql.Tx) error {
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status != scouts.StatusPending || sug.Lane == scouts.LaneHeld || sug.Lane == scouts.LaneSnoozed {
			return nil
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane <> 'held'`,
			sug.ScoutID).Scan(&n); err != nil {
			return fmt.Errorf("localdb: count pending: %w", err)
		}
		if n <= cap {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = 'held', held_from = ? WHERE id = ?`, string(sug.Lane), id); err != nil {
			return fmt.Errorf("localdb: hold: %w", err)
		}
		sug.Lane, held = scouts.LaneHeld, true
		return nil
	})
	return sug, held, err
}

// ReleaseHeld lets a scout's held cards in, oldest first, while its pending
// cards outside the held lane are fewer than cap. Each goes back to the
// lane triage gave it, with as long to wait before it expires as it had
// when it arrived (it did not age while held). It returns the cards let
// in and how many are still held.
func (d *DB) ReleaseHeld(ctx context.Context, scoutID string, cap int, now time.Time) ([]scouts.Suggestion, int, error) {
	var out []scouts.Suggestion
	// Every decision asks: with nothing held (nearly always) it is
	// answered from the read pool, without the write lock.
	held, err := d.HeldCount(ctx, scoutID)
	if err != nil || held == 0 {
		return nil, 0, err
	}
	err = d.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane <> 'held'`,
			scoutID).Scan(&n); err != nil {
			return fmt.Errorf("localdb: count pending: %w", err)
		}
		room := cap - n
		if room > 0 {
			rows, err := tx.QueryContext(ctx, `SELECT id FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane = 'held'
				ORDER BY created_at, id LIMIT ?`, scoutID, room)
			if err != nil {
				return fmt.Errorf("localdb: list held: %w", err)
			}
			var ids []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return fmt.Errorf("localdb: list held: %w", err)
				}
				ids = append(ids, id)
			}
			rows.Close()
			for _, id := range ids {
				if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = CASE WHEN held_from IN ('inbox', 'screened', 'spam') THEN held_from ELSE 'inbox' END,
					held_from = NULL, expires_at = ? + (expires_at - created_at) WHERE id = ?`, now.UnixMilli(), id); err != nil {
					return fmt.Errorf("localdb: let in: %w", err)
				}
				sug, err := getSuggestion(ctx, tx, id)
				if err != nil {
					return err
				}
				out = append(out, sug)
			}
		}
		return tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane = 'held'`,
			scoutID).Scan(&held)
	})
	return out, held, err
}

// HeldCount is how many of a scout's cards are held.
func (d *DB) HeldCount(ctx context.Context, scoutID string) (int, error) {
	var n int
	err := d.read().QueryRowContext(ctx, `SELECT COUNT(*) FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane = 'held'`,
		scoutID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("localdb: count held: %w", err)
	}
	return n, nil
}
