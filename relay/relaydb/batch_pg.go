package relaydb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// writeBatchPG writes a batch on PostgreSQL in one statement, outside any
// transaction (a statement is one by itself), after one read of the keys
// and refs already stored: two round trips to the server instead of six
// (BEGIN, the read, the sequence block, the inserts, COMMIT), and the
// user's row, locked for its sequence block, is held only while that
// statement runs and commits, instead of from the block to COMMIT.
//
// It declines (handled false) a batch that repeats a stored row or an
// expired key, or too large for one statement or one notification: those
// take the transaction path.
func (d *DB) writeBatchPG(ctx context.Context, now time.Time, reqs []*writeReq) (res []writeRes, woken []string, handled bool, err error) {
	keys, refs, err := d.existing(ctx, poolQuerier{d}, reqs)
	if err != nil {
		return nil, nil, true, err
	}
	p := planBatch(reqs, keys, refs, now)
	if len(p.stored) > 0 || len(p.expired) > 0 {
		return nil, nil, false, nil
	}
	woken = p.users()
	query, args, ok := d.batchStatement(reqs, p, now, woken)
	if !ok {
		return nil, nil, false, nil
	}
	if query == "" {
		return p.answer(reqs, nil), nil, true, nil
	}
	for attempt := 1; ; attempt++ {
		var first map[string]int64
		first, err = d.runBatchStatement(ctx, query, args)
		if err == nil {
			return p.answer(reqs, first), woken, true, nil
		}
		if attempt == maxTxAttempts || !isTransientConflict(err) {
			return nil, nil, true, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, true, err
		case <-time.After(time.Duration(attempt) * time.Millisecond):
		}
	}
}

type poolQuerier struct{ d *DB }

func (p poolQuerier) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.d.db.Writer().QueryContext(ctx, p.d.q(query), args...)
}

// runBatchStatement runs a batch statement and returns each user's first
// sequence of the block it took.
func (d *DB) runBatchStatement(ctx context.Context, query string, args []any) (map[string]int64, error) {
	rows, err := d.db.Writer().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("write batch statement: %w", err)
	}
	defer rows.Close()
	first := map[string]int64{}
	for rows.Next() {
		var u string
		var base int64
		if err := rows.Scan(&u, &base); err != nil {
			return nil, fmt.Errorf("write batch statement: %w", err)
		}
		first[u] = base + 1
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("write batch statement: %w", err)
	}
	return first, nil
}

// batchStatement builds the one statement of a batch: lock its users'
// rows in id order (two batches with the same users wait for each other
// rather than deadlock), move their sequence counters, insert the queue
// rows numbered from the blocks, their sealed copies, idempotency keys and
// push hints, and notify the woken users. It returns one row per user:
// the counter before its block. A row of a user that does not exist gets
// no sequence and fails the statement (seq is NOT NULL), so nothing of it
// is written. ok is false when the batch does not fit one statement.
func (d *DB) batchStatement(reqs []*writeReq, p *batchPlan, now time.Time, woken []string) (query string, args []any, ok bool) {
	var ctes []string
	if len(p.fresh) > 0 {
		lock := make([]string, len(woken))
		block := make([]string, len(woken))
		for i, u := range woken {
			lock[i] = "(?::text)"
			block[i] = "(?::text, ?::bigint)"
			args = append(args, u)
		}
		for _, u := range woken {
			args = append(args, u, p.perUser[u])
		}
		ctes = append(ctes,
			`l AS (SELECT id FROM users WHERE id IN (VALUES `+strings.Join(lock, ", ")+`) ORDER BY id FOR UPDATE)`,
			`s AS (UPDATE users u SET next_seq = u.next_seq + v.n FROM (VALUES `+strings.Join(block, ", ")+`) v(id, n), l
				WHERE u.id = v.id AND l.id = v.id RETURNING u.id, u.next_seq - v.n AS base)`)
		var queue, sealed, keys []string
		var sealedArgs, keyArgs []any // their placeholders follow the queue rows'
		k := map[string]int64{}
		for _, i := range p.fresh {
			row, it := p.res[i].row, reqs[i].item
			k[row.UserID]++
			queue = append(queue, "(?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::bigint, ?::bigint, ?::bigint)")
			args = append(args, row.ID, row.UserID, row.ScoutID, row.SourceType, row.SourceRef, row.Verdict, row.Reason, row.Path,
				row.Status, k[row.UserID]-1, row.TriagedAt.UnixMilli(), row.ExpiresAt.UnixMilli())
			for dev, s := range it.Sealed {
				sealed = append(sealed, "(?, ?, ?)")
				sealedArgs = append(sealedArgs, row.ID, dev, s)
			}
			if it.IdempotencyKeyHash != "" {
				keys = append(keys, "(?, ?, ?, ?)")
				keyArgs = append(keyArgs, it.ScoutID, it.IdempotencyKeyHash, row.ID, now.UnixMilli())
			}
		}
		ctes = append(ctes, `q AS (INSERT INTO triage_queue (id, user_id, scout_id, source_type, source_msg_ref, verdict, reason, path, status, seq, triaged_at, expires_at)
			SELECT v.id, v.user_id, v.scout_id, v.source_type, v.ref, v.verdict, v.reason, v.path, v.status, s.base + 1 + v.k, v.triaged, v.expires
			FROM (VALUES `+strings.Join(queue, ", ")+`) v(id, user_id, scout_id, source_type, ref, verdict, reason, path, status, k, triaged, expires)
			LEFT JOIN s ON s.id = v.user_id)`)
		args = append(append(args, sealedArgs...), keyArgs...)
		if len(sealed) > 0 {
			// Checked at the end of the statement, when the queue rows exist.
			ctes = append(ctes, `qs AS (INSERT INTO queue_sealed (queue_id, device_id, sealed) VALUES `+strings.Join(sealed, ", ")+`)`)
		}
		if len(keys) > 0 {
			ctes = append(ctes, `hk AS (INSERT INTO hook_requests (scout_id, key_hash, queue_id, created_at) VALUES `+strings.Join(keys, ", ")+`)`)
		}
	}
	if len(p.hints) > 0 {
		var hints []string
		for _, i := range p.hints {
			h := reqs[i].hint
			hints = append(hints, "(?, ?, ?)")
			args = append(args, strings.ToLower(h.email), fmt.Sprint(h.historyID), now.UnixMilli())
		}
		ctes = append(ctes, `ph AS (INSERT INTO push_inbox (email, history_id, received_at) VALUES `+strings.Join(hints, ", ")+`)`)
	}
	if len(ctes) == 0 {
		return "", nil, true
	}
	if len(args) > pgMaxParams {
		return "", nil, false
	}
	tail := ` SELECT '', 0 WHERE false`
	if len(woken) > 0 {
		payload := strings.Join(woken, ",")
		if len(payload) > notifyPayloadMax {
			return "", nil, false
		}
		// The statement's result is the blocks, read with the
		// notification beside them: a CTE that only selects would not run
		// unless the main query read it.
		ctes = append(ctes, `n AS (SELECT pg_notify(?, ?))`)
		args = append(args, NotifyChannel, payload)
		tail = ` SELECT s.id, s.base FROM s, n`
	}
	return d.q(`WITH ` + strings.Join(ctes, ", ") + tail), args, true
}
