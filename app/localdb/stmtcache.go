package localdb

import (
	"context"
	"database/sql"
	"errors"
)

// execer is what the insert helpers need: a transaction, or a stmtCache
// over one.
type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// stmtCache runs statements in one transaction, preparing each query text
// once. A page of items runs the same few inserts hundreds of times, and
// the driver keeps no statement cache: parsing them again for every row was
// a third of the page's cost.
type stmtCache struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newStmtCache(tx *sql.Tx) *stmtCache {
	return &stmtCache{tx: tx, stmts: map[string]*sql.Stmt{}}
}

func (c *stmtCache) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, ok := c.stmts[q]
	if !ok {
		var err error
		if st, err = c.tx.PrepareContext(ctx, q); err != nil {
			return nil, err
		}
		c.stmts[q] = st
	}
	return st.ExecContext(ctx, args...)
}

// Close releases the statements (the transaction's end would too).
func (c *stmtCache) Close() error {
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}
