package relaydb

import (
	"context"
	"fmt"
	"time"
)

// AcquireSyncLease gives holder the scout's sync lease until ttl from now
// when the lease is free, expired, or holder's already. One statement:
// of instances racing for a free lease exactly one gets it.
func (d *DB) AcquireSyncLease(ctx context.Context, scoutID, holder string, ttl time.Duration) (bool, error) {
	now := d.now()
	res, err := d.db.Writer().ExecContext(ctx, d.sql.acquireLease, scoutID, holder, now.Add(ttl).UnixMilli(), now.UnixMilli())
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
	res, err := d.db.Writer().ExecContext(ctx, d.sql.renewLease, d.now().Add(ttl).UnixMilli(), scoutID, holder)
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
	if _, err := d.db.Writer().ExecContext(ctx, d.sql.releaseLease, scoutID, holder); err != nil {
		return fmt.Errorf("relaydb: release the sync lease of %s: %w", scoutID, err)
	}
	return nil
}

// The model budget's ledger (triage.Ledger), shared by every instance on
// the database, is store.Ledger, the one the desktop uses too; its writes
// run in this database's transactions (a transient conflict is retried).

// Reserve adds tokens to a scout's day unless that would pass cap.
func (d *DB) Reserve(ctx context.Context, scout, day string, cap, tokens int) (bool, error) {
	return d.ledger.Reserve(ctx, scout, day, cap, tokens)
}

// Settle adds delta to a scout's day, never below zero.
func (d *DB) Settle(ctx context.Context, scout, day string, delta int) error {
	return d.ledger.Settle(ctx, scout, day, delta)
}

// Spent is what a scout's day has counted.
func (d *DB) Spent(ctx context.Context, scout, day string) (int, error) {
	return d.ledger.Spent(ctx, scout, day)
}
