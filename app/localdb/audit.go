package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// auditRowsPerInsert is how many audit rows a multi-row insert holds (7
// variables a row, far below SQLite's limit): a page's events go in a few
// statements rather than one each.
const auditRowsPerInsert = 64

var (
	auditInsert     = `INSERT INTO audit (trace_id, stage, type, outcome, summary, refs, at) VALUES (?, ?, ?, ?, ?, ?, ?)`
	auditInsertMany = auditInsert + strings.Repeat(", (?, ?, ?, ?, ?, ?, ?)", auditRowsPerInsert-1)
)

// insertAudit inserts events in the order given (ids follow the events):
// full groups of auditRowsPerInsert in one statement each, the rest one
// by one, so that both statements can stay prepared.
func insertAudit(ctx context.Context, q execer, events ...scouts.AuditEvent) error {
	for len(events) > 0 {
		n, stmt := 1, auditInsert
		if len(events) >= auditRowsPerInsert {
			n, stmt = auditRowsPerInsert, auditInsertMany
		}
		args := make([]any, 0, 7*n)
		for _, e := range events[:n] {
			refs := "{}"
			if len(e.Refs) > 0 {
				b, err := json.Marshal(e.Refs)
				if err != nil {
					return fmt.Errorf("insert audit: %w", err)
				}
				refs = string(b)
			}
			args = append(args, e.TraceID, e.Stage, e.Type, e.Outcome, e.Summary, refs, e.At.UnixMilli())
		}
		if _, err := q.ExecContext(ctx, stmt, args...); err != nil {
			return fmt.Errorf("insert audit: %w", err)
		}
		events = events[n:]
	}
	return nil
}

// AppendAudit stores audit events.
func (d *DB) AppendAudit(ctx context.Context, events ...scouts.AuditEvent) error {
	if len(events) == 0 {
		return nil
	}
	return d.tx(ctx, func(tx *sql.Tx) error { return insertAudit(ctx, tx, events...) })
}

// AuditFilter selects audit events.
type AuditFilter struct {
	TraceID string
	// After lists events with a greater id, for following the log.
	After int64
	Limit int // default 200, at most 5000
}

// ListAudit returns audit events in the order they happened.
func (d *DB) ListAudit(ctx context.Context, f AuditFilter) ([]scouts.AuditEvent, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 200
	}
	limit = min(limit, 5000)
	q := `SELECT id, trace_id, stage, type, outcome, summary, refs, at FROM audit WHERE id > ?`
	args := []any{f.After}
	if f.TraceID != "" {
		q += ` AND trace_id = ?`
		args = append(args, f.TraceID)
	}
	q += fmt.Sprintf(` ORDER BY id LIMIT %d`, limit)
	rows, err := d.read().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("localdb: list audit: %w", err)
	}
	defer rows.Close()
	out := []scouts.AuditEvent{}
	for rows.Next() {
		var e scouts.AuditEvent
		var refs string
		var at int64
		if err := rows.Scan(&e.ID, &e.TraceID, &e.Stage, &e.Type, &e.Outcome, &e.Summary, &refs, &at); err != nil {
			return nil, fmt.Errorf("localdb: list audit: %w", err)
		}
		if err := json.Unmarshal([]byte(refs), &e.Refs); err != nil {
			return nil, fmt.Errorf("localdb: audit %d refs: %w", e.ID, err)
		}
		e.At = time.UnixMilli(at).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
