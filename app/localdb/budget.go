package localdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Reserve adds tokens to a scout's day in the model budget ledger unless
// that would pass cap (triage.Ledger). One UPDATE with the cap in its
// WHERE: concurrent reservations cannot pass it together.
func (d *DB) Reserve(ctx context.Context, scout, day string, cap, tokens int) (bool, error) {
	var ok bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO model_budget (scout_id, day, spent) VALUES (?, ?, 0) ON CONFLICT DO NOTHING`, scout, day); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE model_budget SET spent = spent + ? WHERE scout_id = ? AND day = ? AND spent + ? <= ?`,
			tokens, scout, day, tokens, cap)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("localdb: reserve model tokens: %w", err)
	}
	return ok, nil
}

// Settle adds delta to a scout's day, never below zero.
func (d *DB) Settle(ctx context.Context, scout, day string, delta int) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO model_budget (scout_id, day, spent) VALUES (?, ?, 0) ON CONFLICT DO NOTHING`, scout, day); err != nil {
			return fmt.Errorf("localdb: settle model tokens: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE model_budget SET spent = MAX(0, spent + ?) WHERE scout_id = ? AND day = ?`, delta, scout, day); err != nil {
			return fmt.Errorf("localdb: settle model tokens: %w", err)
		}
		return nil
	})
}

// Spent is what a scout's day has counted.
func (d *DB) Spent(ctx context.Context, scout, day string) (int, error) {
	var n int
	err := d.read().QueryRowContext(ctx, `SELECT spent FROM model_budget WHERE scout_id = ? AND day = ?`, scout, day).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("localdb: model tokens spent: %w", err)
	}
	return n, nil
}
