package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Pending caps (issue 20, item 6; docs/definitions.md, "Pending caps"): a
// scout's cards past its cap wait in lane 'held', in the database, and are
// let in oldest first as cards are decided. Cards carrying rule actions
// that await approval (awaits_actions) have a cap of their own.

// Caps are a scout's two pending caps.
type Caps struct {
	// Cards caps the pending cards outside the held lane; Actions those of
	// them that carry actions awaiting approval.
	Cards, Actions int
}

const (
	countShown   = `SELECT COUNT(*) FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane <> 'held'`
	countActions = `SELECT COUNT(*) FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane <> 'held' AND awaits_actions = 1`
	countHeld    = `SELECT COUNT(*) FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane = 'held'`
)

func count(ctx context.Context, q queryer, query, scoutID string) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, query, scoutID).Scan(&n); err != nil {
		return 0, fmt.Errorf("localdb: count cards: %w", err)
	}
	return n, nil
}

// HoldIfOver records whether the pending card id carries actions awaiting
// approval (awaits), then holds it when its scout is over a cap (the card
// itself counted): it moves to lane 'held', remembering its lane. held is
// false when there was room (or the card is no longer pending).
func (d *DB) HoldIfOver(ctx context.Context, id, scoutID string, caps Caps, awaits bool) (sug scouts.Suggestion, held bool, err error) {
	if !awaits {
		// Every new card asks: under the cap (nearly always) it is
		// answered from the read pool, without the write lock. The count
		// is read again in the transaction.
		n, err := count(ctx, d.read(), countShown, scoutID)
		if err != nil || n <= caps.Cards {
			return sug, false, err
		}
	}
	err = d.tx(ctx, func(tx *sql.Tx) error {
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status != scouts.StatusPending || sug.Lane == scouts.LaneHeld || sug.Lane == scouts.LaneSnoozed {
			return nil
		}
		if awaits {
			if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET awaits_actions = 1 WHERE id = ?`, id); err != nil {
				return fmt.Errorf("localdb: mark actions awaiting approval: %w", err)
			}
		}
		n, err := count(ctx, tx, countShown, sug.ScoutID)
		if err != nil {
			return err
		}
		over := n > caps.Cards
		if awaits && !over {
			a, err := count(ctx, tx, countActions, sug.ScoutID)
			if err != nil {
				return err
			}
			over = a > caps.Actions
		}
		if !over {
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

// ReleaseHeld lets a scout's held cards in, oldest first, while it is
// under its caps (a held card with actions awaiting approval waits while
// those are at their cap; the cards after it may go in). Each goes back to
// the lane triage gave it, with as long to wait before it expires as it
// had when it arrived (it did not age while held). It returns the cards let
// in and how many are still held.
func (d *DB) ReleaseHeld(ctx context.Context, scoutID string, caps Caps, now time.Time) ([]scouts.Suggestion, int, error) {
	var out []scouts.Suggestion
	// Every decision asks: with nothing held (nearly always) it is
	// answered from the read pool, without the write lock.
	held, err := d.HeldCount(ctx, scoutID)
	if err != nil || held == 0 {
		return nil, 0, err
	}
	err = d.tx(ctx, func(tx *sql.Tx) error {
		shown, err := count(ctx, tx, countShown, scoutID)
		if err != nil {
			return err
		}
		acts, err := count(ctx, tx, countActions, scoutID)
		if err != nil {
			return err
		}
		if shown < caps.Cards {
			rows, err := tx.QueryContext(ctx, `SELECT id, awaits_actions FROM suggestions WHERE scout_id = ? AND status = 'pending' AND lane = 'held'
				ORDER BY created_at, id`, scoutID)
			if err != nil {
				return fmt.Errorf("localdb: list held: %w", err)
			}
			type heldCard struct {
				id     string
				awaits bool
			}
			var cards []heldCard
			for rows.Next() {
				var h heldCard
				if err := rows.Scan(&h.id, &h.awaits); err != nil {
					rows.Close()
					return fmt.Errorf("localdb: list held: %w", err)
				}
				cards = append(cards, h)
			}
			rows.Close()
			for _, h := range cards {
				if shown >= caps.Cards {
					break
				}
				if h.awaits && acts >= caps.Actions {
					continue
				}
				if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = CASE WHEN held_from IN ('inbox', 'screened', 'spam') THEN held_from ELSE 'inbox' END,
					held_from = NULL, expires_at = ? + (expires_at - created_at) WHERE id = ?`, now.UnixMilli(), h.id); err != nil {
					return fmt.Errorf("localdb: let in: %w", err)
				}
				sug, err := getSuggestion(ctx, tx, h.id)
				if err != nil {
					return err
				}
				out = append(out, sug)
				shown++
				if h.awaits {
					acts++
				}
			}
		}
		held, err = count(ctx, tx, countHeld, scoutID)
		return err
	})
	return out, held, err
}

// HeldCount is how many of a scout's cards are held.
func (d *DB) HeldCount(ctx context.Context, scoutID string) (int, error) {
	return count(ctx, d.read(), countHeld, scoutID)
}
