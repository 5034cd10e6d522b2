package localdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// SyncSeq returns a numeric sync cursor (0 when unset).
func (d *DB) SyncSeq(ctx context.Context, key string) (int64, error) {
	var v string
	err := d.read().QueryRowContext(ctx, `SELECT value FROM sync_state WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("localdb: sync state %s: %w", key, err)
	}
	return strconv.ParseInt(v, 10, 64)
}

// AdvanceSyncSeq moves a numeric cursor forward (never back).
func (d *DB) AdvanceSyncSeq(ctx context.Context, key string, seq int64) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE CAST(sync_state.value AS INTEGER) < CAST(excluded.value AS INTEGER)`,
			key, strconv.FormatInt(seq, 10))
		if err != nil {
			return fmt.Errorf("localdb: advance %s: %w", key, err)
		}
		return nil
	})
}

// ResetSyncSeq forgets a numeric cursor (SyncSeq then answers 0): the
// stream it counted is another one now.
func (d *DB) ResetSyncSeq(ctx context.Context, key string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sync_state WHERE key = ?`, key); err != nil {
			return fmt.Errorf("localdb: reset %s: %w", key, err)
		}
		return nil
	})
}

// OutboxEntry is an operation waiting to reach a remote side.
type OutboxEntry struct {
	Key       string
	Action    string
	Params    []byte
	Status    string
	Attempts  int
	LastError string
	Result    []byte
	CreatedAt time.Time
}

// AddOutbox queues an operation. Adding a key twice is harmless.
func (d *DB) AddOutbox(ctx context.Context, key, action string, params []byte) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO outbox (key, action, params, status, created_at) VALUES (?, ?, ?, 'pending', ?)
			ON CONFLICT (key) DO NOTHING`, key, action, string(params), time.Now().UnixMilli())
		if err != nil {
			return fmt.Errorf("localdb: add to outbox: %w", err)
		}
		return nil
	})
}

// PendingOutbox returns the pending operations, oldest first.
func (d *DB) PendingOutbox(ctx context.Context) ([]OutboxEntry, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT key, action, params, status, attempts, last_error, created_at FROM outbox WHERE status = 'pending' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("localdb: outbox: %w", err)
	}
	defer rows.Close()
	var out []OutboxEntry
	for rows.Next() {
		var e OutboxEntry
		var params string
		var created int64
		if err := rows.Scan(&e.Key, &e.Action, &params, &e.Status, &e.Attempts, &e.LastError, &created); err != nil {
			return nil, fmt.Errorf("localdb: outbox: %w", err)
		}
		e.Params = []byte(params)
		e.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// FinishOutbox records an operation's outcome: done, or failed for good
// (the remote side refused it; retrying cannot help).
func (d *DB) FinishOutbox(ctx context.Context, key string, failed bool, errText string, result []byte) error {
	status := "done"
	if failed {
		status = "failed"
	}
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET status = ?, last_error = ?, result = ?, attempts = attempts + 1, done_at = ? WHERE key = ?`,
			status, errText, string(result), time.Now().UnixMilli(), key)
		if err != nil {
			return fmt.Errorf("localdb: finish outbox: %w", err)
		}
		return nil
	})
}

// OutboxCounts counts operations by status.
func (d *DB) OutboxCounts(ctx context.Context) (map[string]int, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT status, COUNT(*) FROM outbox GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("localdb: outbox counts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		out[s] = n
	}
	return out, rows.Err()
}
