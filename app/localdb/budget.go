package localdb

import "context"

// The model budget's ledger (triage.Ledger) is store.Ledger, the one the
// relay uses too; its writes run in this database's transactions.

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
