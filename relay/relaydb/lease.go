package relaydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AcquireSyncLease gives holder the scout's sync lease until ttl from now
// when the lease is free, expired, or holder's already. One statement:
// of instances racing for a free lease exactly one gets it.
func (d *DB) AcquireSyncLease(ctx context.Context, scoutID, holder string, ttl time.Duration) (bool, error) {
	now := d.now()
	res, err := d.db.Writer().ExecContext(ctx, d.q(`INSERT INTO sync_leases (scout_id, holder, expires_at) VALUES (?, ?, ?)
		ON CONFLICT (scout_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE sync_leases.expires_at <= ? OR sync_leases.holder = excluded.holder`),
		scoutID, holder, now.Add(ttl).UnixMilli(), now.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("relaydb: acquire the sync lease of %s: %w", scoutID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("relaydb: acquire the sync lease of %s: %w", scoutID, err)
	}
	return n == 1, nil
}

// RenewSyncLease extends holder's lease; false when it is no longer
// holder's (it expired and another instance took it).
func (d *DB) RenewSyncLease(ctx context.Context, scoutID, holder string, ttl time.Duration) (bool, error) {
	res, err := d.db.Writer().ExecContext(ctx, d.q(`UPDATE sync_leases SET expires_at = ? WHERE scout_id = ? AND holder = ?`),
		d.now().Add(ttl).UnixMilli(), scoutID, holder)
	if err != nil {
		return false, fmt.Errorf("relaydb: renew the sync lease of %s: %w", scoutID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("relaydb: renew the sync lease of %s: %w", scoutID, err)
	}
	return n == 1, nil
}

// ReleaseSyncLease ends holder's lease, if it still holds it.
func (d *DB) ReleaseSyncLease(ctx context.Context, scoutID, holder string) error {
	if _, err := d.db.Writer().ExecContext(ctx, d.q(`DELETE FROM sync_leases WHERE scout_id = ? AND holder = ?`), scoutID, holder); err != nil {
		return fmt.Errorf("relaydb: release the sync lease of %s: %w", scoutID, err)
	}
	return nil
}

// Reserve adds tokens to a scout's day in the model budget ledger unless
// that would pass cap (triage.Ledger); shared by every instance on the
// database. The cap is in the UPDATE's WHERE: concurrent reservations, in
// any instance, cannot pass it together.
func (d *DB) Reserve(ctx context.Context, scout, day string, cap, tokens int) (bool, error) {
	var ok bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO model_budget (scout_id, day, spent) VALUES (?, ?, 0) ON CONFLICT DO NOTHING`), scout, day); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, d.q(`UPDATE model_budget SET spent = spent + ? WHERE scout_id = ? AND day = ? AND spent + ? <= ?`),
			tokens, scout, day, tokens, cap)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("relaydb: reserve model tokens: %w", err)
	}
	return ok, nil
}

// Settle adds delta to a scout's day, never below zero.
func (d *DB) Settle(ctx context.Context, scout, day string, delta int) error {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO model_budget (scout_id, day, spent) VALUES (?, ?, 0) ON CONFLICT DO NOTHING`), scout, day); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, d.q(`UPDATE model_budget SET spent = CASE WHEN spent + ? < 0 THEN 0 ELSE spent + ? END WHERE scout_id = ? AND day = ?`),
			delta, delta, scout, day)
		return err
	})
	if err != nil {
		return fmt.Errorf("relaydb: settle model tokens: %w", err)
	}
	return nil
}

// Spent is what a scout's day has counted.
func (d *DB) Spent(ctx context.Context, scout, day string) (int, error) {
	var n int
	err := d.db.Read().QueryRowContext(ctx, d.q(`SELECT spent FROM model_budget WHERE scout_id = ? AND day = ?`), scout, day).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("relaydb: model tokens spent: %w", err)
	}
	return n, nil
}
