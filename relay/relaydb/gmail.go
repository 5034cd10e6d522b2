package relaydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/relay"
)

// setGmail writes a Gmail scout's settings inside UpsertScout's
// transaction. A new sealed token (a reconnect) also clears an
// auth-expired state; an update without one keeps the current token.
func (d *DB) setGmail(ctx context.Context, tx *sql.Tx, s relay.CloudScout) error {
	g := s.Gmail
	if g == nil {
		return nil
	}
	rules := g.Rules
	if rules == "" {
		rules = "[]"
	}
	var token any
	if len(g.TokenSealed) > 0 {
		token = g.TokenSealed
	}
	if s.Mode == relay.ModeRelayPing {
		// Switching to ping mode drops the token: the relay must not keep
		// a credential it no longer needs.
		_, err := tx.ExecContext(ctx, d.sql.setGmailPing, strings.ToLower(g.Email), g.AutoTrashSpam, g.InactivityPauseDays, rules, g.ModelDayTokens, g.ModelRunTokens, s.ID)
		return err
	}
	_, err := tx.ExecContext(ctx, d.sql.setGmail, strings.ToLower(g.Email), g.AutoTrashSpam, g.InactivityPauseDays, rules, token, token != nil, token != nil,
		g.ModelDayTokens, g.ModelRunTokens, s.ID)
	if err != nil {
		return err
	}
	return d.setGmailStart(ctx, tx, s.ID, g)
}

// setGmailStart takes the desktop's word for where a scout starts, until
// the relay has read the mailbox itself: the registration may reach the
// relay long after the scout was created (the relay was down), and mail
// from that gap must not fall before the baseline. The earlier creation
// time becomes the scout's, which a first sync without a history id reads
// from.
func (d *DB) setGmailStart(ctx context.Context, tx *sql.Tx, id string, g *relay.GmailScout) error {
	if !g.CreatedAt.IsZero() {
		_, err := tx.ExecContext(ctx, d.sql.setGmailCreated, g.CreatedAt.UnixMilli(), id, g.CreatedAt.UnixMilli())
		if err != nil {
			return err
		}
	}
	if g.Baseline > 0 {
		_, err := tx.ExecContext(ctx, d.sql.setGmailBaseline, strconv.FormatUint(g.Baseline, 10), id)
		if err != nil {
			return err
		}
	}
	return nil
}

func scanGmail(row interface{ Scan(...any) error }) (relay.CloudScout, error) {
	s := relay.CloudScout{Kind: relay.KindGmail, Gmail: &relay.GmailScout{}}
	g := s.Gmail
	var created, updated int64
	var cursor string
	var lastSync, watch sql.NullInt64
	err := row.Scan(&s.ID, &s.UserID, &s.Name, &s.Mode, &s.Enabled, &created, &updated, &g.Email, &g.TokenSealed,
		&g.AutoTrashSpam, &g.InactivityPauseDays, &g.Rules, &cursor, &lastSync, &watch, &g.State, &g.StateMessage,
		&g.ModelDayTokens, &g.ModelRunTokens)
	if err != nil {
		return s, err
	}
	s.CreatedAt, s.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	if cursor != "" {
		g.Cursor, _ = strconv.ParseUint(cursor, 10, 64)
	}
	if lastSync.Valid {
		g.LastSyncAt = time.UnixMilli(lastSync.Int64).UTC()
	}
	if watch.Valid {
		g.WatchExpires = time.UnixMilli(watch.Int64).UTC()
	}
	return s, nil
}

func (d *DB) gmailScouts(ctx context.Context, where string, args ...any) ([]relay.CloudScout, error) {
	rows, err := d.db.Read().QueryContext(ctx, d.q(`SELECT `+gmailColumns+` FROM cloud_scouts WHERE kind = 'gmail' AND `+where+` ORDER BY id`), args...)
	if err != nil {
		return nil, fmt.Errorf("relaydb: gmail scouts: %w", err)
	}
	defer rows.Close()
	var out []relay.CloudScout
	for rows.Next() {
		s, err := scanGmail(rows)
		if err != nil {
			return nil, fmt.Errorf("relaydb: gmail scouts: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("relaydb: gmail scouts: %w", err)
	}
	return out, nil
}

// GmailScouts returns every enabled Gmail scout.
func (d *DB) GmailScouts(ctx context.Context) ([]relay.CloudScout, error) {
	return d.gmailScouts(ctx, "enabled = ?", true)
}

// GmailScoutsByEmail returns the enabled Gmail scouts watching a mailbox
// (several users may watch the same address, each with their own scout).
func (d *DB) GmailScoutsByEmail(ctx context.Context, email string) ([]relay.CloudScout, error) {
	return d.gmailScouts(ctx, "enabled = ? AND gmail_email = ?", true, strings.ToLower(email))
}

// GmailScoutsOfUser returns a user's Gmail scouts, enabled or not (a
// scout disabled for an expired authorisation still has news for them).
func (d *DB) GmailScoutsOfUser(ctx context.Context, userID string) ([]relay.CloudScout, error) {
	return d.gmailScouts(ctx, "user_id = ?", userID)
}

// GmailScout returns one Gmail scout, enabled or not.
func (d *DB) GmailScout(ctx context.Context, id string) (relay.CloudScout, error) {
	out, err := d.gmailScouts(ctx, "id = ?", id)
	if err != nil {
		return relay.CloudScout{}, err
	}
	if len(out) == 0 {
		return relay.CloudScout{}, notFound("gmail scout", id)
	}
	return out[0], nil
}

// AdvanceCursor moves a scout's history cursor forward, never back: two
// syncs racing (two relay instances, a push during a poll) cannot undo
// each other's progress.
func (d *DB) AdvanceCursor(ctx context.Context, scoutID string, cursor uint64) error {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var cur sql.NullString
		if err := tx.QueryRowContext(ctx, d.sql.gmailCursor, scoutID).Scan(&cur); err != nil {
			return err
		}
		old, _ := strconv.ParseUint(cur.String, 10, 64)
		now := d.now().UnixMilli()
		if cursor <= old {
			_, err := tx.ExecContext(ctx, d.sql.touchSync, now, scoutID)
			return err
		}
		_, err := tx.ExecContext(ctx, d.sql.advanceCursor, strconv.FormatUint(cursor, 10), now, scoutID)
		return err
	})
	if err != nil {
		return fmt.Errorf("relaydb: advance cursor of %s: %w", scoutID, err)
	}
	return nil
}

// SetWatch records when a scout's Gmail watch expires.
func (d *DB) SetWatch(ctx context.Context, scoutID string, expires time.Time) error {
	_, err := d.db.Writer().ExecContext(ctx, d.sql.setWatch, expires.UnixMilli(), scoutID)
	if err != nil {
		return fmt.Errorf("relaydb: set watch of %s: %w", scoutID, err)
	}
	return nil
}

// SetScoutState records a scout's health; disable also turns it off (an
// expired authorisation: nothing will work until the user reconnects). It
// reports whether the state changed, so callers tell desktops only then.
func (d *DB) SetScoutState(ctx context.Context, scoutID, state, message string, disable bool) (changed bool, err error) {
	var user string
	err = d.tx(ctx, func(tx *sql.Tx) error {
		var cur, curMsg string
		if err := tx.QueryRowContext(ctx, d.sql.scoutState, scoutID).Scan(&cur, &curMsg, &user); err != nil {
			return err
		}
		changed = cur != state || curMsg != message
		q := d.sql.setState
		args := []any{state, message, scoutID}
		if disable {
			q = d.sql.setStateDisabled
			args = []any{state, message, false, d.now().UnixMilli(), scoutID}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
		if disable {
			return d.hookTargetsChanged(ctx, tx, user)
		}
		return nil
	})
	if disable && user != "" {
		d.hooks.forgetUser(user)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return false, notFound("scout", scoutID)
	}
	if err != nil {
		return false, fmt.Errorf("relaydb: set state of %s: %w", scoutID, err)
	}
	return changed, nil
}

// AddPushHint persists a push notification; it is what the push endpoint
// does before answering Pub/Sub. It returns once the hint is committed,
// with the other writes waiting at the same time (see batch.go).
func (d *DB) AddPushHint(ctx context.Context, email string, historyID uint64) error {
	if res := d.submit(ctx, &writeReq{hint: &pushHint{email: email, historyID: historyID}}); res.err != nil {
		return fmt.Errorf("relaydb: persist push: %w", res.err)
	}
	return nil
}

// PushHints returns up to limit persisted hints, oldest first.
func (d *DB) PushHints(ctx context.Context, limit int) ([]relay.PushHint, error) {
	rows, err := d.db.Read().QueryContext(ctx, d.sql.pushHints, limit)
	if err != nil {
		return nil, fmt.Errorf("relaydb: push hints: %w", err)
	}
	defer rows.Close()
	var out []relay.PushHint
	for rows.Next() {
		var h relay.PushHint
		var hid string
		var at int64
		if err := rows.Scan(&h.ID, &h.Email, &hid, &at); err != nil {
			return nil, fmt.Errorf("relaydb: push hints: %w", err)
		}
		h.HistoryID, _ = strconv.ParseUint(hid, 10, 64)
		h.ReceivedAt = time.UnixMilli(at).UTC()
		out = append(out, h)
	}
	return out, rows.Err()
}

// DeleteHints removes hints whose sync is done.
func (d *DB) DeleteHints(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := d.db.Writer().ExecContext(ctx, d.q(`DELETE FROM push_inbox WHERE id IN `+inList(len(ids))), args...)
	if err != nil {
		return fmt.Errorf("relaydb: delete push hints: %w", err)
	}
	return nil
}

// Queued reports whether a scout already has a queue row for an item.
func (d *DB) Queued(ctx context.Context, scoutID, ref string) (bool, error) {
	var n int
	err := d.db.Read().QueryRowContext(ctx, d.sql.queuedRef, scoutID, ref).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("relaydb: queued: %w", err)
	}
	return n > 0, nil
}

// LastDeviceSeen returns when any of a user's active devices was last
// connected (zero if never): the inactivity pause reads it.
func (d *DB) LastDeviceSeen(ctx context.Context, userID string) (time.Time, error) {
	var last sql.NullInt64
	err := d.db.Read().QueryRowContext(ctx, d.sql.lastDeviceSeen, userID).Scan(&last)
	if err != nil {
		return time.Time{}, fmt.Errorf("relaydb: last device seen: %w", err)
	}
	if !last.Valid {
		return time.Time{}, nil
	}
	return time.UnixMilli(last.Int64).UTC(), nil
}
