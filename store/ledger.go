package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Ledger is the model budget's count of tokens per scout per UTC day, in
// a table model_budget (scout_id, day, spent; primary key scout_id, day)
// that the desktop's and the relay's migrations each create. It is
// triage.Ledger for both: one implementation, whatever the dialect.
//
// A reservation is one UPDATE with the cap in its WHERE (spent + n <=
// cap), made before each model call and settled with the call's usage
// after it: concurrent reservations, in one process or several sharing
// the database, cannot pass the cap together.
type Ledger struct {
	tx   func(context.Context, func(*sql.Tx) error) error
	read *sql.DB
	// The statements in the database's placeholder style, made once.
	open, reserve, settle, spent string
}

// NewLedger returns the ledger of db. Writes run in tx, the owner's write
// transaction (with what it does around one: retries of a transient
// conflict, its caches' bookkeeping); nil runs them in db.Tx.
func NewLedger(db *DB, tx func(context.Context, func(*sql.Tx) error) error) *Ledger {
	if tx == nil {
		tx = db.Tx
	}
	return &Ledger{tx: tx, read: db.Read(),
		open:    db.Rebind(`INSERT INTO model_budget (scout_id, day, spent) VALUES (?, ?, 0) ON CONFLICT DO NOTHING`),
		reserve: db.Rebind(`UPDATE model_budget SET spent = spent + ? WHERE scout_id = ? AND day = ? AND spent + ? <= ?`),
		settle:  db.Rebind(`UPDATE model_budget SET spent = CASE WHEN spent + ? < 0 THEN 0 ELSE spent + ? END WHERE scout_id = ? AND day = ?`),
		spent:   db.Rebind(`SELECT spent FROM model_budget WHERE scout_id = ? AND day = ?`),
	}
}

// Reserve adds tokens to the scout's day unless that would pass cap; ok
// is false when it would.
func (l *Ledger) Reserve(ctx context.Context, scout, day string, cap, tokens int) (ok bool, err error) {
	err = l.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, l.open, scout, day); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, l.reserve, tokens, scout, day, tokens, cap)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		ok = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: reserve %d model tokens for %s on %s: %w", tokens, scout, day, err)
	}
	return ok, nil
}

// Settle adds delta (negative: tokens given back) to the scout's day,
// never below zero.
func (l *Ledger) Settle(ctx context.Context, scout, day string, delta int) error {
	err := l.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, l.open, scout, day); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, l.settle, delta, delta, scout, day)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: settle %d model tokens for %s on %s: %w", delta, scout, day, err)
	}
	return nil
}

// Spent is what the scout's day has counted.
func (l *Ledger) Spent(ctx context.Context, scout, day string) (int, error) {
	var n int
	err := l.read.QueryRowContext(ctx, l.spent, scout, day).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: model tokens spent by %s on %s: %w", scout, day, err)
	}
	return n, nil
}
