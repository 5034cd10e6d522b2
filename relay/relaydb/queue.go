package relaydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/store"
)

// NewItem is a verdict to queue.
type NewItem struct {
	UserID     string
	ScoutID    string
	SourceType string
	SourceRef  string // empty: the row's own id (webhook items)
	Verdict    string
	Reason     string
	// Path names the triage step that decided ("rule:vip",
	// "heuristic:list", "model:…"): the card's "why" says how.
	Path string
	// Sealed holds the item's content sealed to each device, by device id.
	Sealed map[string][]byte
	// IdempotencyKeyHash, when set, makes a repeat within IdempotencyTTL
	// return the first row instead of queuing another.
	IdempotencyKeyHash string
}

// IdempotencyTTL is how long an Idempotency-Key is remembered.
const IdempotencyTTL = 24 * time.Hour

// Enqueue queues an item for its user's devices and returns the row; dup
// reports that it was already queued (same scout and source ref, or same
// idempotency key within a day) and the row is the first one. It returns
// once the row is committed, written in one transaction with the other
// requests waiting at the same time (see batch.go).
func (d *DB) Enqueue(ctx context.Context, it NewItem) (relay.QueueItem, bool, error) {
	res := d.submit(ctx, &writeReq{item: &it})
	if res.err != nil {
		return relay.QueueItem{}, false, fmt.Errorf("relaydb: enqueue: %w", res.err)
	}
	return res.row, res.dup, nil
}

func scanQueue(row interface{ Scan(...any) error }, extra ...any) (relay.QueueItem, error) {
	var r relay.QueueItem
	var triaged, expires int64
	var delivered, acked sql.NullInt64
	dest := append([]any{&r.ID, &r.UserID, &r.ScoutID, &r.SourceType, &r.SourceRef, &r.Verdict, &r.Reason, &r.Path, &r.Status, &r.Seq,
		&triaged, &delivered, &acked, &expires}, extra...)
	if err := row.Scan(dest...); err != nil {
		return r, err
	}
	r.TriagedAt, r.ExpiresAt = time.UnixMilli(triaged).UTC(), time.UnixMilli(expires).UTC()
	r.DeliveredAt, r.AckedAt = store.FromMillis(delivered), store.FromMillis(acked)
	return r, nil
}

func (d *DB) queueRow(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id, deviceID string) (relay.QueueItem, error) {
	var sealed []byte
	r, err := scanQueue(q.QueryRowContext(ctx, d.sql.queueRow, deviceID, id), &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return r, notFound("queue row", id)
	}
	r.Sealed = sealed
	return r, err
}

// Pending returns up to limit of a user's rows after seq, in sequence
// order, with their content sealed for deviceID: what a device connected
// after acknowledging seq has still to receive. Expired rows are included
// (the device is told they expired).
func (d *DB) Pending(ctx context.Context, userID, deviceID string, after int64, limit int) ([]relay.QueueItem, error) {
	rows, err := d.db.Read().QueryContext(ctx, d.sql.pending, deviceID, userID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("relaydb: pending: %w", err)
	}
	defer rows.Close()
	var out []relay.QueueItem
	for rows.Next() {
		var sealed []byte
		r, err := scanQueue(rows, &sealed)
		if err != nil {
			return nil, fmt.Errorf("relaydb: pending: %w", err)
		}
		r.Sealed = sealed
		out = append(out, r)
	}
	return out, rows.Err()
}

func inList(n int) string { return "(?" + strings.Repeat(",?", n-1) + ")" }

// MarkDelivered records that rows of a user (by sequence) were sent to a
// device that did not acknowledge them: a session that ends with rows in
// flight says so, and those still queued become delivered. Rows are not
// marked as they are sent: a write per batch sent was a third of the
// relay's CPU while a device drained a backlog, and an acknowledgement
// (which sets delivered_at too) follows almost every send.
func (d *DB) MarkDelivered(ctx context.Context, userID string, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	args := []any{d.now().UnixMilli(), userID}
	for _, s := range seqs {
		args = append(args, s)
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, d.q(`UPDATE triage_queue SET status = 'delivered', delivered_at = ? WHERE id IN
			(SELECT id FROM triage_queue WHERE user_id = ? AND status = 'queued' AND seq IN `+inList(len(seqs))+` `+d.sql.lockInOrder+`)`), args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("relaydb: mark delivered: %w", err)
	}
	return nil
}

// Ack records that a device committed rows of its user (by sequence): the
// rows are acked (and delivered, if nothing said so before) and the
// device's cursor moves forward. Sequences of other users are ignored,
// whatever a device claims.
//
// An acknowledgement need not survive a crash of the database: the rows
// it loses are sent again, the desktop finds them already committed, and
// its next hello carries its cursor (see AckThrough). So on PostgreSQL it
// commits without waiting for its WAL to reach the disk, in one statement.
func (d *DB) Ack(ctx context.Context, userID, deviceID string, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	maxSeq := int64(0)
	now := d.now().UnixMilli()
	pick := []any{userID} // the rows' subquery
	for _, s := range seqs {
		pick = append(pick, s)
		maxSeq = max(maxSeq, s)
	}
	rows := `SELECT id FROM triage_queue WHERE user_id = ? AND status IN ('queued','delivered') AND seq IN ` + inList(len(seqs)) + ` ` + d.sql.lockInOrder
	cursor := []any{maxSeq, deviceID, userID, maxSeq}
	if d.db.Dialect == store.Postgres {
		return d.ackPG(ctx, rows, append(append(pick, now, now), cursor...))
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, d.q(`UPDATE triage_queue SET status = 'acked', acked_at = ?, delivered_at = COALESCE(delivered_at, ?)
			WHERE id IN (`+rows+`)`), append([]any{now, now}, pick...)...); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, d.sql.moveCursor, cursor...)
		return err
	})
	if err != nil {
		return fmt.Errorf("relaydb: ack: %w", err)
	}
	return nil
}

// ackPG is Ack on PostgreSQL: one statement, a transaction by itself (one
// round trip instead of four), whose commit does not wait for the disk
// (set_config's local setting holds until that commit). The rows are
// locked before the device, as in AckThrough; a deadlock victim runs
// again.
func (d *DB) ackPG(ctx context.Context, rows string, args []any) error {
	query := d.q(`WITH c AS (SELECT set_config('synchronous_commit', 'off', true) AS v),
		r AS (` + rows + `),
		a AS (UPDATE triage_queue t SET status = 'acked', acked_at = ?, delivered_at = COALESCE(t.delivered_at, ?) FROM r WHERE t.id = r.id),
		dv AS (UPDATE devices SET acked_seq = ? WHERE id = ? AND user_id = ? AND acked_seq < ?)
		SELECT v FROM c`)
	for attempt := 1; ; attempt++ {
		_, err := d.db.Writer().ExecContext(ctx, query, args...)
		if err == nil {
			return nil
		}
		if attempt == maxTxAttempts || !isTransientConflict(err) {
			return fmt.Errorf("relaydb: ack: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("relaydb: ack: %w", err)
		case <-time.After(time.Duration(attempt) * time.Millisecond):
		}
	}
}

// AckThrough records what a device says in its hello: it has committed
// every row of its user up to seq. Acks sent just before a crash or a lost
// connection never arrived; this takes them from the hello instead, so the
// rows do not wait as a phantom backlog until they expire. The claim is
// capped at the user's last allocated sequence: a device claiming more
// (hostile, or restored from another relay) acknowledges nothing queued
// later. The sealed content that no active device still needs is dropped
// at once, as the purge would. It returns how many rows it acknowledged.
func (d *DB) AckThrough(ctx context.Context, userID, deviceID string, seq int64) (int64, error) {
	if seq <= 0 {
		return 0, nil
	}
	var acked int64
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var last int64
		if err := tx.QueryRowContext(ctx, d.sql.lastSeq, userID).Scan(&last); err != nil {
			return fmt.Errorf("last sequence: %w", err)
		}
		through := min(seq, last)
		now := d.now().UnixMilli()
		res, err := tx.ExecContext(ctx, d.sql.ackThrough, now, now, userID, through)
		if err != nil {
			return err
		}
		acked, _ = res.RowsAffected()
		if _, err := tx.ExecContext(ctx, d.sql.moveCursor, through, deviceID, userID, through); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, d.sql.dropSealedThrough, userID, through)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("relaydb: ack through %d: %w", seq, err)
	}
	return acked, nil
}

// ExpireDue marks rows that waited too long as expired and returns the
// users concerned, so their connected devices can be told.
func (d *DB) ExpireDue(ctx context.Context) ([]string, error) {
	now := d.now().UnixMilli()
	var users []string
	err := d.tx(ctx, func(tx *sql.Tx) error {
		users = users[:0] // a retried transaction starts again
		rows, err := tx.QueryContext(ctx, d.sql.dueUsers, now)
		if err != nil {
			return err
		}
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				rows.Close()
				return err
			}
			users = append(users, u)
		}
		rows.Close()
		if len(users) == 0 {
			return rows.Err()
		}
		// The content of an expired row can never be delivered: drop it.
		if _, err := tx.ExecContext(ctx, d.sql.dropSealedDue, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, d.sql.expireDue, now); err != nil {
			return err
		}
		return d.notifyInTx(ctx, tx, users)
	})
	if err != nil {
		return nil, fmt.Errorf("relaydb: expire: %w", err)
	}
	for _, u := range users {
		d.queuedAfterCommit(u)
	}
	return users, nil
}

// Purge forgets what is no longer needed: idempotency keys older than a
// day, sealed content of rows every active device has acknowledged, and
// rows acknowledged or expired more than retention ago.
func (d *DB) Purge(ctx context.Context, retention time.Duration) error {
	now := d.now()
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, d.sql.purgeKeys, now.Add(-IdempotencyTTL).UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, d.sql.purgeSealed); err != nil {
			return err
		}
		cut := now.Add(-retention).UnixMilli()
		_, err := tx.ExecContext(ctx, d.sql.purgeRows, cut, cut)
		return err
	})
}

// QueueDepth counts rows by status (metrics).
func (d *DB) QueueDepth(ctx context.Context) (map[string]int, error) {
	rows, err := d.db.Read().QueryContext(ctx, d.sql.queueDepth)
	if err != nil {
		return nil, fmt.Errorf("relaydb: queue depth: %w", err)
	}
	defer rows.Close()
	out := map[string]int{relay.StatusQueued: 0, relay.StatusDelivered: 0, relay.StatusAcked: 0, relay.StatusExpired: 0}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		out[s] = n
	}
	return out, rows.Err()
}
