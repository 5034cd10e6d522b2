package relaydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// Group commit. Items to queue and push hints are written by one
// committer goroutine: it takes every request waiting when it is free (up
// to maxBatch), writes them all in one transaction, and answers each
// caller only once that transaction committed. A commit costs about the
// same for one row as for a hundred (a WAL append on SQLite, an fsync on
// PostgreSQL), so under load many requests share it; alone, a request
// waits for no one. The user's sequence counter is moved once per batch
// (a block of sequences), and PostgreSQL is notified once per batch.

// maxBatch bounds the requests written in one transaction.
const maxBatch = 256

// batchTimeout bounds one batch's transaction: it serves many callers, so
// it runs under none of their contexts.
const batchTimeout = 30 * time.Second

// writeReq is one caller's request to the committer: an item to queue or
// a push hint to persist.
type writeReq struct {
	ctx  context.Context
	item *NewItem
	hint *pushHint
	done chan writeRes // buffered: the committer never waits for the caller
}

type pushHint struct {
	email     string
	historyID uint64
}

type writeRes struct {
	row relay.QueueItem
	dup bool
	err error
}

type committer struct {
	in       chan *writeReq
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	// batches and requests count what was committed, for the mean batch
	// size.
	batches, requests atomic.Int64
}

var errClosed = errors.New("relaydb: database is closed")

func (d *DB) startCommitter() {
	d.c = &committer{in: make(chan *writeReq, maxBatch), stop: make(chan struct{}), done: make(chan struct{})}
	go d.commitLoop()
}

func (d *DB) stopCommitter() {
	d.c.stopOnce.Do(func() { close(d.c.stop) })
	<-d.c.done
}

// BatchStats returns how many group-commit batches were written and the
// requests they held.
func (d *DB) BatchStats() (batches, requests int64) {
	return d.c.batches.Load(), d.c.requests.Load()
}

// submit hands a request to the committer and waits for its answer.
func (d *DB) submit(ctx context.Context, r *writeReq) writeRes {
	r.ctx, r.done = ctx, make(chan writeRes, 1)
	select {
	case d.c.in <- r:
	case <-d.c.stop:
		return writeRes{err: errClosed}
	case <-ctx.Done():
		return writeRes{err: ctx.Err()}
	}
	select {
	case res := <-r.done:
		return res
	case <-ctx.Done():
		// It may still commit: as with an answer lost on the way back,
		// the caller retries and the idempotency key makes it one row.
		return writeRes{err: ctx.Err()}
	}
}

func (d *DB) commitLoop() {
	defer close(d.c.done)
	batch := make([]*writeReq, 0, maxBatch)
	for {
		select {
		case r := <-d.c.in:
			batch = append(batch[:0], r)
		case <-d.c.stop:
			for {
				select {
				case r := <-d.c.in:
					r.done <- writeRes{err: errClosed}
				default:
					return
				}
			}
		}
		// Callers that are running (reading a request, sealing it) and
		// about to submit join this batch rather than wait for the next
		// commit: under load batches grew from about 4 requests to 6
		// (16 webhook callers), and alone a request loses nothing, as no
		// one else runs.
		runtime.Gosched()
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-d.c.in:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		d.commitBatch(batch)
		d.c.batches.Add(1)
		d.c.requests.Add(int64(len(batch)))
		clear(batch)
		// The callers have their answers: a new batch shape is prepared
		// now, off their path, while the next requests gather.
		d.prepareWanted(context.Background())
	}
}

// commitBatch writes a batch and answers its callers. If the batch fails
// as a whole, each request is tried alone, so that one bad request (an
// unknown scout, say) fails by itself rather than taking the others with
// it.
func (d *DB) commitBatch(batch []*writeReq) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- writeRes{err: err} // gone before it was written
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	res, err := d.writeBatch(ctx, live)
	if err != nil && len(live) > 1 {
		for _, r := range live {
			one, err := d.writeBatch(ctx, []*writeReq{r})
			if err != nil {
				r.done <- writeRes{err: err}
			} else {
				r.done <- one[0]
			}
		}
		return
	}
	for i, r := range live {
		if err != nil {
			r.done <- writeRes{err: err}
		} else {
			r.done <- res[i]
		}
	}
}

// writeBatch writes reqs in one transaction and wakes the users whose rows
// it queued. A concurrent writer elsewhere (another relay instance) may
// insert the same idempotency key or source ref between the batch's checks
// and its inserts: the batch is then run again, and finds that row.
func (d *DB) writeBatch(ctx context.Context, reqs []*writeReq) ([]writeRes, error) {
	var res []writeRes
	var users []string
	var err error
	for attempt := 1; ; attempt++ {
		now := d.now().UTC().Truncate(time.Millisecond)
		handled := false
		if d.db.Dialect == store.Postgres {
			res, users, handled, err = d.writeBatchPG(ctx, now, reqs)
		}
		if !handled {
			err = d.tx(ctx, func(tx *sql.Tx) error {
				var err error
				res, users, err = d.writeBatchTx(ctx, tx, now, reqs)
				return err
			})
		}
		if err == nil || attempt == 3 || !isUniqueViolation(err) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("relaydb: write batch: %w", err)
	}
	for _, u := range users {
		d.queuedAfterCommit(u)
	}
	return res, nil
}

type scoutKey struct{ scout, key string }

type keyRow struct {
	queueID string
	created int64
}

// batchPlan is what a batch will do, decided from its requests and the
// keys and refs already stored.
type batchPlan struct {
	res   []writeRes // the new rows of fresh requests (without their seq yet)
	dupOf []int      // the earlier request of the batch that request i repeats, or -1
	fresh []int      // requests that queue a new row
	// perUser counts the new rows per user; hints lists the push hints.
	perUser map[string]int
	hints   []int
	// stored maps a request to the id of the stored row it repeats;
	// expired lists idempotency keys past their TTL, to forget first.
	stored  map[int]string
	expired []scoutKey
}

// planBatch decides, without the database, what each request of a batch
// does given the keys and refs already stored.
func planBatch(reqs []*writeReq, keys map[scoutKey]keyRow, refs map[scoutKey]string, now time.Time) *batchPlan {
	p := &batchPlan{res: make([]writeRes, len(reqs)), dupOf: make([]int, len(reqs)), perUser: map[string]int{}, stored: map[int]string{}}
	byKey, byRef := map[scoutKey]int{}, map[scoutKey]int{}
	for i, r := range reqs {
		p.dupOf[i] = -1
		if r.hint != nil {
			p.hints = append(p.hints, i)
			continue
		}
		it := r.item
		k := scoutKey{it.ScoutID, it.IdempotencyKeyHash}
		if it.IdempotencyKeyHash != "" {
			if j, ok := byKey[k]; ok {
				p.dupOf[i] = j
				continue
			}
			byKey[k] = i
			if kr, ok := keys[k]; ok {
				if now.Sub(time.UnixMilli(kr.created)) < IdempotencyTTL {
					p.stored[i] = kr.queueID
					continue
				}
				// Expired key: forget it and queue anew.
				p.expired = append(p.expired, k)
			}
		}
		if it.SourceRef != "" {
			rk := scoutKey{it.ScoutID, it.SourceRef}
			if j, ok := byRef[rk]; ok {
				p.dupOf[i] = j
				continue
			}
			byRef[rk] = i
			if id, ok := refs[rk]; ok {
				p.stored[i] = id
				continue
			}
		}
		id := scouts.NewID("rq")
		ref := it.SourceRef
		if ref == "" {
			ref = id
		}
		p.res[i].row = relay.QueueItem{ID: id, UserID: it.UserID, ScoutID: it.ScoutID, SourceType: it.SourceType, SourceRef: ref,
			Verdict: it.Verdict, Reason: it.Reason, Path: it.Path, Status: relay.StatusQueued, TriagedAt: now, ExpiresAt: now.Add(relay.QueueTTL)}
		p.fresh = append(p.fresh, i)
		p.perUser[it.UserID]++
	}
	return p
}

// users is the users the batch queues rows for, sorted.
func (p *batchPlan) users() []string {
	out := make([]string, 0, len(p.perUser))
	for u := range p.perUser {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// answer gives fresh rows their sequences (first[u] is user u's first of
// the block) and repeated requests their first request's answer.
func (p *batchPlan) answer(reqs []*writeReq, first map[string]int64) []writeRes {
	for _, i := range p.fresh {
		u := reqs[i].item.UserID
		p.res[i].row.Seq = first[u]
		first[u]++
	}
	for i, j := range p.dupOf {
		if j >= 0 {
			p.res[i] = writeRes{row: p.res[j].row, dup: true}
		}
	}
	return p.res
}

// writeBatchTx does a batch's work inside its transaction and returns each
// request's answer and the users whose rows it queued.
func (d *DB) writeBatchTx(ctx context.Context, tx *sql.Tx, now time.Time, reqs []*writeReq) ([]writeRes, []string, error) {
	keys, refs, err := d.existing(ctx, txQuerier{d, tx}, reqs)
	if err != nil {
		return nil, nil, err
	}
	p := planBatch(reqs, keys, refs, now)
	for i, id := range p.stored {
		row, err := d.queueRow(ctx, tx, id, "")
		if err != nil {
			return nil, nil, fmt.Errorf("row repeated by a request: %w", err)
		}
		p.res[i] = writeRes{row: row, dup: true}
	}
	for _, k := range p.expired {
		if _, err := tx.ExecContext(ctx, d.sql.forgetKey, k.scout, k.key); err != nil {
			return nil, nil, fmt.Errorf("forget expired idempotency key: %w", err)
		}
	}
	first, err := d.allocateSeqs(ctx, tx, p.perUser)
	if err != nil {
		return nil, nil, err
	}
	woken := p.users()
	res := p.answer(reqs, first)
	notified, err := d.insertRows(ctx, tx, reqs, res, p.fresh, now, woken)
	if err != nil {
		return nil, nil, err
	}
	if err := d.insertHints(ctx, tx, reqs, p.hints, now); err != nil {
		return nil, nil, err
	}
	if !notified {
		if err := d.notifyInTx(ctx, tx, woken); err != nil {
			return nil, nil, err
		}
	}
	return res, woken, nil
}

// querier runs a query in a transaction (txQuerier) or on its own.
type querier interface {
	query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

type txQuerier struct {
	d  *DB
	tx *sql.Tx
}

func (t txQuerier) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.d.txQuery(ctx, t.tx, query, args...)
}

// existing reads, in one statement, the remembered idempotency keys and
// the rows already queued for the source refs that the batch's items
// carry.
func (d *DB) existing(ctx context.Context, q querier, reqs []*writeReq) (map[scoutKey]keyRow, map[scoutKey]string, error) {
	keys, refs := map[scoutKey]keyRow{}, map[scoutKey]string{}
	var keyArgs, refArgs []any
	seenKey, seenRef := map[scoutKey]bool{}, map[scoutKey]bool{}
	for _, r := range reqs {
		if r.item == nil {
			continue
		}
		if k := (scoutKey{r.item.ScoutID, r.item.IdempotencyKeyHash}); k.key != "" && !seenKey[k] {
			seenKey[k] = true
			keyArgs = append(keyArgs, k.scout, k.key)
		}
		if k := (scoutKey{r.item.ScoutID, r.item.SourceRef}); k.key != "" && !seenRef[k] {
			seenRef[k] = true
			refArgs = append(refArgs, k.scout, k.key)
		}
	}
	var parts []string
	if len(keyArgs) > 0 {
		parts = append(parts, `SELECT 1, scout_id, key_hash, queue_id, created_at FROM hook_requests
			WHERE (scout_id, key_hash) IN (VALUES `+valuesList(len(keyArgs)/2, 2)+`)`)
	}
	if len(refArgs) > 0 {
		parts = append(parts, `SELECT 2, scout_id, source_msg_ref, id, 0 FROM triage_queue
			WHERE (scout_id, source_msg_ref) IN (VALUES `+valuesList(len(refArgs)/2, 2)+`)`)
	}
	if len(parts) == 0 {
		return keys, refs, nil
	}
	rows, err := q.query(ctx, strings.Join(parts, " UNION ALL "), append(keyArgs, refArgs...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("read idempotency keys and source refs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind int
		var k scoutKey
		var kr keyRow
		if err := rows.Scan(&kind, &k.scout, &k.key, &kr.queueID, &kr.created); err != nil {
			return nil, nil, fmt.Errorf("read idempotency keys and source refs: %w", err)
		}
		if kind == 1 {
			keys[k] = kr
		} else {
			refs[k] = kr.queueID
		}
	}
	return keys, refs, rows.Err()
}

// allocateSeqs takes a block of sequence numbers per user, users in a
// fixed order (two batches locking the same users' rows wait for each
// other rather than deadlock), and returns each user's first number.
func (d *DB) allocateSeqs(ctx context.Context, tx *sql.Tx, perUser map[string]int) (map[string]int64, error) {
	ids := make([]string, 0, len(perUser))
	for u := range perUser {
		ids = append(ids, u)
	}
	slices.Sort(ids)
	first := make(map[string]int64, len(ids))
	for _, u := range ids {
		var last int64
		if err := d.txQueryRow(ctx, tx, d.sql.allocateSeqs, perUser[u], u).Scan(&last); err != nil {
			return nil, fmt.Errorf("allocate sequences of user %s: %w", u, err)
		}
		first[u] = last - int64(perUser[u]) + 1
	}
	return first, nil
}

// pgMaxParams keeps a statement under PostgreSQL's 65 535 bound
// parameters.
const pgMaxParams = 60000

// rowsPerInsert bounds the rows of one multi-row INSERT, well under both
// dialects' limits on bound parameters.
const rowsPerInsert = 256

// insertRows inserts the batch's new rows. On PostgreSQL it also notifies
// the woken users in the same statement when their ids fit one payload
// (one round trip fewer per batch), and says so.
func (d *DB) insertRows(ctx context.Context, tx *sql.Tx, reqs []*writeReq, res []writeRes, fresh []int, now time.Time, woken []string) (notified bool, err error) {
	var queue, sealed, keys []any
	for _, i := range fresh {
		row, it := res[i].row, reqs[i].item
		queue = append(queue, row.ID, row.UserID, row.ScoutID, row.SourceType, row.SourceRef, row.Verdict, row.Reason, row.Path,
			row.Status, row.Seq, row.TriagedAt.UnixMilli(), row.ExpiresAt.UnixMilli())
		for dev, s := range it.Sealed {
			sealed = append(sealed, row.ID, dev, s)
		}
		if it.IdempotencyKeyHash != "" {
			keys = append(keys, it.ScoutID, it.IdempotencyKeyHash, row.ID, now.UnixMilli())
		}
	}
	const queueInsert = `INSERT INTO triage_queue (id, user_id, scout_id, source_type, source_msg_ref, verdict, reason, path, status, seq, triaged_at, expires_at) VALUES `
	const sealedInsert = `INSERT INTO queue_sealed (queue_id, device_id, sealed) VALUES `
	const keysInsert = `INSERT INTO hook_requests (scout_id, key_hash, queue_id, created_at) VALUES `
	if d.db.Dialect == store.Postgres && len(queue)+len(sealed)+len(keys) <= pgMaxParams {
		// One statement for the three inserts: each statement is a round
		// trip to the server, and the batch waits for all of them. The
		// sealed rows' foreign keys are checked at the end of the
		// statement, when the queue rows exist.
		var parts []string
		var args []any
		for _, ins := range []struct {
			sql  string
			cols int
			args []any
		}{{queueInsert, 12, queue}, {sealedInsert, 3, sealed}, {keysInsert, 4, keys}} {
			if len(ins.args) > 0 {
				parts = append(parts, fmt.Sprintf("i%d AS (%s%s)", len(parts), ins.sql, valuesList(len(ins.args)/ins.cols, ins.cols)))
				args = append(args, ins.args...)
			}
		}
		if len(parts) == 0 {
			return false, nil
		}
		// The statement's own result is the notification: a CTE that
		// only selects would not run unless the main query read it.
		tail := ` SELECT 1`
		if payload := strings.Join(woken, ","); len(woken) > 0 && len(payload) <= notifyPayloadMax {
			tail = ` SELECT pg_notify(?, ?)`
			args = append(args, NotifyChannel, payload)
			notified = true
		}
		if _, err := tx.ExecContext(ctx, d.q(`WITH `+strings.Join(parts, ", ")+tail), args...); err != nil {
			return false, fmt.Errorf("insert queue rows: %w", err)
		}
		return notified, nil
	}
	if err := d.insertMany(ctx, tx, queueInsert, 12, queue); err != nil {
		return false, fmt.Errorf("insert queue rows: %w", err)
	}
	if err := d.insertMany(ctx, tx, sealedInsert, 3, sealed); err != nil {
		return false, fmt.Errorf("insert sealed payloads: %w", err)
	}
	if err := d.insertMany(ctx, tx, keysInsert, 4, keys); err != nil {
		return false, fmt.Errorf("remember idempotency keys: %w", err)
	}
	return false, nil
}

func (d *DB) insertHints(ctx context.Context, tx *sql.Tx, reqs []*writeReq, hints []int, now time.Time) error {
	var args []any
	for _, i := range hints {
		h := reqs[i].hint
		args = append(args, strings.ToLower(h.email), strconv.FormatUint(h.historyID, 10), now.UnixMilli())
	}
	if err := d.insertMany(ctx, tx, `INSERT INTO push_inbox (email, history_id, received_at) VALUES `, 3, args); err != nil {
		return fmt.Errorf("persist pushes: %w", err)
	}
	return nil
}

// insertMany runs prefix with as many "(?, …)" tuples of cols values as
// args holds, rowsPerInsert at a time.
func (d *DB) insertMany(ctx context.Context, tx *sql.Tx, prefix string, cols int, args []any) error {
	for len(args) > 0 {
		n := min(len(args)/cols, rowsPerInsert)
		if _, err := d.txExec(ctx, tx, prefix+valuesList(n, cols), args[:n*cols]...); err != nil {
			return err
		}
		args = args[n*cols:]
	}
	return nil
}

// valuesList is "(?, ?), (?, ?)" for rows of cols placeholders.
func valuesList(rows, cols int) string {
	tuple := "(?" + strings.Repeat(", ?", cols-1) + ")"
	return tuple + strings.Repeat(", "+tuple, rows-1)
}

// notifyPayloadMax keeps a NOTIFY payload under PostgreSQL's 8000 bytes.
const notifyPayloadMax = 7000

// notifyInTx announces, on PostgreSQL, the users whose rows a transaction
// queued or expired: one NOTIFY per transaction (several only if the ids
// would not fit one payload), delivered to every listening instance at
// commit. The payload is the user ids joined by commas.
func (d *DB) notifyInTx(ctx context.Context, tx *sql.Tx, users []string) error {
	if d.sql.notify == "" {
		return nil
	}
	for len(users) > 0 {
		n, size := 0, 0
		for n < len(users) && (n == 0 || size+1+len(users[n]) <= notifyPayloadMax) {
			size += 1 + len(users[n])
			n++
		}
		if _, err := tx.ExecContext(ctx, d.sql.notify, NotifyChannel, strings.Join(users[:n], ",")); err != nil {
			return fmt.Errorf("notify: %w", err)
		}
		users = users[n:]
	}
	return nil
}

// notifiedUsers splits a NOTIFY payload into user ids.
func notifiedUsers(payload string) []string {
	return strings.Split(payload, ",")
}
