package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// LastBrief is when the last daily brief was sent; ok is false before the
// first (migration 0015).
func (d *DB) LastBrief(ctx context.Context) (time.Time, bool, error) {
	var at sql.NullInt64
	if err := d.read().QueryRowContext(ctx, `SELECT MAX(at) FROM briefs`).Scan(&at); err != nil {
		return time.Time{}, false, fmt.Errorf("localdb: last brief: %w", err)
	}
	return store.FromMillis(at), at.Valid, nil
}

// RecordBrief records a daily brief sent at at, holding items things, with
// its audit entry, in one transaction.
func (d *DB) RecordBrief(ctx context.Context, at time.Time, items int, audit scouts.AuditEvent) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO briefs (at, items) VALUES (?, ?)`, at.UnixMilli(), items); err != nil {
			return fmt.Errorf("localdb: record brief: %w", err)
		}
		return insertAudit(ctx, tx, audit)
	})
}

// PendingSince lists the pending cards of a lane that arrived after since,
// newest first (at most limit).
func (d *DB) PendingSince(ctx context.Context, lane scouts.Lane, since time.Time, limit int) ([]scouts.Suggestion, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT `+suggestionReadCols+` FROM suggestions
		WHERE status = 'pending' AND lane = ? AND created_at > ? ORDER BY created_at DESC, rowid DESC LIMIT ?`, lane, since.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("localdb: pending since: %w", err)
	}
	defer rows.Close()
	out := []scouts.Suggestion{}
	for rows.Next() {
		s, err := scanSuggestion(rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: pending since: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
