package relaydb

import (
	"context"
	"database/sql"

	"github.com/scouts-hq/scouts/store"
)

// maxWriteStmts bounds the write connection's cached statements: a batch's
// statements vary with its size (one placeholder tuple per row), so there
// are a few hundred shapes at most; past the bound a statement is run
// unprepared.
const maxWriteStmts = 512

// txStmt returns query prepared for tx, or nil: run it as it is. On
// SQLite the write pool is one connection, so a statement prepared once on
// it serves every later transaction: parsing and planning a batch's four
// or five statements was a fifth of the SQLite relay's ingest CPU.
// PostgreSQL's driver caches prepared statements per connection itself.
//
// A statement cannot be prepared on the pool while tx holds its only
// connection, so a new shape runs unprepared and is put aside for
// prepareWanted, which the committer calls between batches.
func (d *DB) txStmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	if d.db.Dialect != store.SQLite {
		return nil
	}
	d.wstmts.mu.Lock()
	st, ok := d.wstmts.m[query]
	if !ok && len(d.wstmts.m)+len(d.wstmts.want) < maxWriteStmts {
		if d.wstmts.want == nil {
			d.wstmts.want = map[string]bool{}
		}
		d.wstmts.want[query] = true
	}
	d.wstmts.mu.Unlock()
	if st == nil {
		return nil
	}
	return tx.StmtContext(ctx, st)
}

// prepareWanted prepares on the write pool the statements transactions
// ran unprepared; call it outside any transaction.
func (d *DB) prepareWanted(ctx context.Context) {
	d.wstmts.mu.Lock()
	want := d.wstmts.want
	d.wstmts.want = nil
	d.wstmts.mu.Unlock()
	for q := range want {
		st, err := d.db.Writer().PrepareContext(ctx, q)
		if err != nil {
			continue // the query's own error shows when it runs unprepared
		}
		d.wstmts.mu.Lock()
		if d.wstmts.m == nil {
			d.wstmts.m = map[string]*sql.Stmt{}
		}
		if _, dup := d.wstmts.m[q]; dup {
			st.Close()
		} else {
			d.wstmts.m[q] = st
		}
		d.wstmts.mu.Unlock()
	}
}

func (d *DB) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	query = d.q(query)
	if st := d.txStmt(ctx, tx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

func (d *DB) txQuery(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	query = d.q(query)
	if st := d.txStmt(ctx, tx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, query, args...)
}

// txQueryRow runs one of d.sql's statements (already in the dialect).
func (d *DB) txQueryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := d.txStmt(ctx, tx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}
