package relaydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/scouts"
)

// ApplyOnce runs a configuration operation at most once per (user, op id):
// the first run's result (a JSON document) is stored in the same
// transaction as its effects, and a replay gets that result back without
// running apply again. This is what makes the desktop's outbox
// exactly-once in effect.
func (d *DB) ApplyOnce(ctx context.Context, userID, opID string, apply func(tx *sql.Tx) (result []byte, err error)) (result []byte, replayed bool, err error) {
	err = d.tx(ctx, func(tx *sql.Tx) error {
		replayed = false // a retried transaction starts again
		var prev string
		err := tx.QueryRowContext(ctx, d.sql.configOpResult, userID, opID).Scan(&prev)
		if err == nil {
			result, replayed = []byte(prev), true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		result, err = apply(tx)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, d.sql.insertConfigOp, userID, opID, string(result), d.now().UnixMilli())
		return err
	})
	// UpsertScout and DisableScout run in apply: whatever it did, this
	// process's webhook answers for the user are read again (after the
	// commit, see hookTargetsChanged).
	d.hooks.forgetUser(userID)
	if err != nil {
		return nil, false, fmt.Errorf("relaydb: config operation %s: %w", opID, err)
	}
	return result, replayed, nil
}

// UpsertScout creates or updates a user's cloud scout inside an ApplyOnce
// transaction (which forgets the user's cached webhook answers after it). A scout id owned by another user is refused, and so is a
// change of kind: a webhook's row would carry a mailbox nothing reads, or
// a Gmail scout lose its mode, while the desktop is told all is well.
func (d *DB) UpsertScout(ctx context.Context, tx *sql.Tx, s relay.CloudScout) error {
	var owner, kind string
	err := tx.QueryRowContext(ctx, d.sql.scoutOwner, s.ID).Scan(&owner, &kind)
	now := d.now().UnixMilli()
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if s.Kind == relay.KindWebhook && s.HookTokenHash == "" {
			// Without the hash every post would be refused while the
			// desktop believes its webhook works.
			return scouts.Errorf(scouts.EInvalid, "webhook scout %s is new: its token hash is required", s.ID)
		}
		_, err = tx.ExecContext(ctx, d.sql.insertScout, s.ID, s.UserID, s.Kind, s.Name, s.Mode, s.Enabled, nullStr(s.HookTokenHash), now, now)
		if err != nil {
			return err
		}
		if err := d.hookTargetsChanged(ctx, tx, s.UserID); err != nil {
			return err
		}
		return d.setGmail(ctx, tx, s)
	case err != nil:
		return err
	case owner != s.UserID:
		return scouts.Errorf(scouts.EConflict, "scout %s belongs to another user", s.ID)
	case kind != s.Kind:
		return scouts.Errorf(scouts.EInvalid, "scout %s is a %s scout; its kind cannot change to %s", s.ID, kind, s.Kind)
	}
	// An update without a token hash keeps the current one.
	_, err = tx.ExecContext(ctx, d.sql.updateScout, s.Name, s.Mode, s.Enabled, nullStr(s.HookTokenHash), now, s.ID)
	if err != nil {
		return err
	}
	if err := d.hookTargetsChanged(ctx, tx, s.UserID); err != nil {
		return err
	}
	return d.setGmail(ctx, tx, s)
}

// DisableScout disables a user's scout inside an ApplyOnce transaction
// (which forgets the user's cached webhook answers after it).
func (d *DB) DisableScout(ctx context.Context, tx *sql.Tx, userID, scoutID string) error {
	res, err := tx.ExecContext(ctx, d.sql.disableScout, false, d.now().UnixMilli(), scoutID, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("scout", scoutID)
	}
	return d.hookTargetsChanged(ctx, tx, userID)
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Scout returns a cloud scout.
func (d *DB) Scout(ctx context.Context, id string) (relay.CloudScout, error) {
	var s relay.CloudScout
	var hook sql.NullString
	var created, updated int64
	err := d.db.Read().QueryRowContext(ctx, d.sql.scoutByID, id).Scan(&s.ID, &s.UserID, &s.Kind, &s.Name, &s.Mode, &s.Enabled, &hook, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return s, notFound("scout", id)
	}
	if err != nil {
		return s, fmt.Errorf("relaydb: scout: %w", err)
	}
	s.HookTokenHash = hook.String
	s.CreatedAt, s.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return s, nil
}
