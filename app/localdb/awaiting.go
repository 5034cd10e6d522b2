package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Awaited is a sent mail a Gmail scout waits on an answer to (awaiting
// reply), one per thread: its headers and Gmail's snippet, never a body.
type Awaited struct {
	ThreadID   string
	MessageID  string
	Recipients []AwaitedRecipient
	Subject    string
	Snippet    string
	SentAt     time.Time
	DueAt      time.Time
	// State is waiting, carded, answered or gone; CardRef the source ref
	// of the card a carded wait made.
	State     string
	CardRef   string
	CheckedAt time.Time
}

// AwaitedRecipient is one person an awaited mail went to.
type AwaitedRecipient struct {
	Name string `json:"name,omitempty"`
	Addr string `json:"addr"`
}

const awaitedCols = `thread_id, message_id, recipients, subject, snippet, sent_at, due_at, state, card_ref, checked_at`

// AwaitedThreads returns a scout's awaited mail in these threads, by
// thread id.
func (d *DB) AwaitedThreads(ctx context.Context, scoutID string, threadIDs []string) (map[string]Awaited, error) {
	out := map[string]Awaited{}
	const chunk = 500
	for len(threadIDs) > 0 {
		n := min(chunk, len(threadIDs))
		args := []any{scoutID}
		for _, id := range threadIDs[:n] {
			args = append(args, id)
		}
		threadIDs = threadIDs[n:]
		list, err := d.queryAwaited(ctx, `SELECT `+awaitedCols+` FROM gmail_awaiting WHERE scout_id = ? AND thread_id IN (?`+
			strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for _, a := range list {
			out[a.ThreadID] = a
		}
	}
	return out, nil
}

// AwaitedToCheck returns a scout's waits whose thread must be read again:
// waiting and due by now, or carded and last read before stale.
func (d *DB) AwaitedToCheck(ctx context.Context, scoutID string, now, stale time.Time) ([]Awaited, error) {
	return d.queryAwaited(ctx, `SELECT `+awaitedCols+` FROM gmail_awaiting WHERE scout_id = ? AND
		((state = 'waiting' AND due_at <= ?) OR (state = 'carded' AND checked_at < ?)) ORDER BY due_at`,
		scoutID, now.UnixMilli(), stale.UnixMilli())
}

// SaveAwaited writes a scout's waits, each replacing its thread's, in one
// transaction.
func (d *DB) SaveAwaited(ctx context.Context, scoutID string, rows []Awaited) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		for _, a := range rows {
			rcpt, err := json.Marshal(a.Recipients)
			if err != nil {
				return fmt.Errorf("localdb: save awaited mail: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO gmail_awaiting (scout_id, `+awaitedCols+`)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, scoutID, a.ThreadID, a.MessageID, string(rcpt), a.Subject, a.Snippet,
				a.SentAt.UnixMilli(), a.DueAt.UnixMilli(), a.State, a.CardRef, msOrZero(a.CheckedAt)); err != nil {
				return fmt.Errorf("localdb: save awaited mail: %w", err)
			}
		}
		return nil
	})
}

func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func (d *DB) queryAwaited(ctx context.Context, q string, args ...any) ([]Awaited, error) {
	rows, err := d.read().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("localdb: awaited mail: %w", err)
	}
	defer rows.Close()
	var out []Awaited
	for rows.Next() {
		var a Awaited
		var rcpt string
		var sent, due, checked int64
		if err := rows.Scan(&a.ThreadID, &a.MessageID, &rcpt, &a.Subject, &a.Snippet, &sent, &due, &a.State, &a.CardRef, &checked); err != nil {
			return nil, fmt.Errorf("localdb: awaited mail: %w", err)
		}
		if err := json.Unmarshal([]byte(rcpt), &a.Recipients); err != nil {
			return nil, fmt.Errorf("localdb: awaited mail of thread %s: %w", a.ThreadID, err)
		}
		a.SentAt, a.DueAt = time.UnixMilli(sent).UTC(), time.UnixMilli(due).UTC()
		if checked > 0 {
			a.CheckedAt = time.UnixMilli(checked).UTC()
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
