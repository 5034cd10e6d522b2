package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Familiar senders (issue 19; docs/triage.md, "Familiar senders"): how
// many times each sender and list wrote to a scout, by the hash of the
// learner's feature for it (identity_seen, migration 0021). Counted with
// the item's own insert (RecordItems), so a crash never counts an item
// that was not recorded, nor loses one that was.

const seenInsert = `INSERT INTO identity_seen (scout_id, h, n) VALUES (?, ?, 1)
	ON CONFLICT (scout_id, h) DO UPDATE SET n = n + 1`

func countSeen(ctx context.Context, w execer, scoutID string, hashes []uint64) error {
	for _, h := range hashes {
		if _, err := w.ExecContext(ctx, seenInsert, scoutID, int64(h)); err != nil {
			return fmt.Errorf("localdb: count a sender's mail: %w", err)
		}
	}
	return nil
}

// IdentitySeen returns how many items of the scout each hash (a sender's
// or a list's feature) came with; see engine.Store.
func (d *DB) IdentitySeen(ctx context.Context, scoutID string, hashes []uint64) ([]int, error) {
	out := make([]int, len(hashes))
	if len(hashes) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(hashes)+1)
	args = append(args, scoutID)
	for _, h := range hashes {
		args = append(args, int64(h))
	}
	rows, err := d.read().QueryContext(ctx, `SELECT h, n FROM identity_seen WHERE scout_id = ? AND h IN (?`+
		strings.Repeat(",?", len(hashes)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("localdb: senders seen: %w", err)
	}
	defer rows.Close()
	seen := make(map[uint64]int, len(hashes))
	for rows.Next() {
		var h int64
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			return nil, fmt.Errorf("localdb: senders seen: %w", err)
		}
		seen[uint64(h)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("localdb: senders seen: %w", err)
	}
	for i, h := range hashes {
		out[i] = seen[h]
	}
	return out, nil
}

// SeenCounts returns every count of the scout's senders and lists, and
// SetSeenCounts puts such a copy back in their place: the evaluation
// scores the same later mail after each number of decisions, and each
// scoring must find the senders as the decisions left them, not as seen
// again by the scoring before (app/evaluate).
func (d *DB) SeenCounts(ctx context.Context, scoutID string) (map[uint64]int, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT h, n FROM identity_seen WHERE scout_id = ?`, scoutID)
	if err != nil {
		return nil, fmt.Errorf("localdb: senders seen: %w", err)
	}
	defer rows.Close()
	out := map[uint64]int{}
	for rows.Next() {
		var h int64
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			return nil, fmt.Errorf("localdb: senders seen: %w", err)
		}
		out[uint64(h)] = n
	}
	return out, rows.Err()
}

// SetSeenCounts replaces the scout's counts by seen; see SeenCounts.
func (d *DB) SetSeenCounts(ctx context.Context, scoutID string, seen map[uint64]int) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM identity_seen WHERE scout_id = ?`, scoutID); err != nil {
			return fmt.Errorf("localdb: reset senders seen: %w", err)
		}
		for h, n := range seen {
			if _, err := tx.ExecContext(ctx, `INSERT INTO identity_seen (scout_id, h, n) VALUES (?, ?, ?)`, scoutID, int64(h), n); err != nil {
				return fmt.Errorf("localdb: reset senders seen: %w", err)
			}
		}
		return nil
	})
}
