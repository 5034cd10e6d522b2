package localdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// execer is what the insert helpers need: a transaction, or a stmtCache
// over one.
type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// stmtCache runs statements in one transaction, preparing each query text
// once. A page of items runs the same few inserts hundreds of times, and
// the driver keeps no statement cache: parsing them again for every row was
// a third of the page's cost. The inserts every item runs are prepared
// once for good on the writer connection (hotWrites); a transaction of a
// single item, the common case when the agent is not catching up, then
// parses nothing.
type stmtCache struct {
	tx     *sql.Tx
	shared map[string]*sql.Stmt // prepared on the writer pool
	stmts  map[string]*sql.Stmt // this transaction's
}

func newStmtCache(tx *sql.Tx, shared map[string]*sql.Stmt) *stmtCache {
	return &stmtCache{tx: tx, shared: shared, stmts: map[string]*sql.Stmt{}}
}

func (c *stmtCache) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, ok := c.stmts[q]
	if !ok {
		// On the writer's one connection, a statement prepared on the
		// pool is used as it is, not prepared again.
		if sh, ok := c.shared[q]; ok {
			st = c.tx.StmtContext(ctx, sh)
		} else {
			var err error
			if st, err = c.tx.PrepareContext(ctx, q); err != nil {
				return nil, err
			}
		}
		c.stmts[q] = st
	}
	return st.ExecContext(ctx, args...)
}

// hotWrites are the inserts of every recorded item.
func hotWrites() []string {
	return []string{suggestionInsert, featuresInsert, auditInsert, auditInsertMany}
}

// prepareShared prepares qs on the writer pool.
func prepareShared(ctx context.Context, w *sql.DB, qs []string) (map[string]*sql.Stmt, error) {
	out := make(map[string]*sql.Stmt, len(qs))
	for _, q := range qs {
		st, err := w.PrepareContext(ctx, q)
		if err != nil {
			closeShared(out)
			return nil, fmt.Errorf("localdb: prepare: %w", err)
		}
		out[q] = st
	}
	return out, nil
}

func closeShared(m map[string]*sql.Stmt) error {
	var errs []error
	for _, st := range m {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// Close releases the statements (the transaction's end would too).
func (c *stmtCache) Close() error {
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}
