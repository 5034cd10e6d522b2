package relaydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// AddUser creates a user.
func (d *DB) AddUser(ctx context.Context, email string) (relay.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return relay.User{}, scouts.Errorf(scouts.EInvalid, "%q is not an email address", email)
	}
	u := relay.User{ID: scouts.NewID("us"), Email: email, CreatedAt: d.now().UTC().Truncate(time.Millisecond)}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, d.sql.insertUser, u.ID, u.Email, u.CreatedAt.UnixMilli())
		return err
	})
	if isUniqueViolation(err) {
		return u, scouts.Errorf(scouts.EConflict, "user %s already exists", email)
	}
	if err != nil {
		return u, fmt.Errorf("relaydb: add user: %w", err)
	}
	return u, nil
}

// UserByEmail returns a user.
func (d *DB) UserByEmail(ctx context.Context, email string) (relay.User, error) {
	var u relay.User
	var created int64
	err := d.db.Read().QueryRowContext(ctx, d.sql.userByEmail,
		strings.ToLower(strings.TrimSpace(email))).Scan(&u.ID, &u.Email, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return u, notFound("user", email)
	}
	if err != nil {
		return u, fmt.Errorf("relaydb: user: %w", err)
	}
	u.CreatedAt = time.UnixMilli(created).UTC()
	return u, nil
}

// AddDevice creates a device for a user and returns it with its token,
// which exists nowhere else afterwards: only its hash is stored.
func (d *DB) AddDevice(ctx context.Context, email, name string) (relay.Device, string, error) {
	u, err := d.UserByEmail(ctx, email)
	if err != nil {
		return relay.Device{}, "", err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return relay.Device{}, "", scouts.Errorf(scouts.EInvalid, "device name must be 1 to 100 characters")
	}
	token := NewToken("sdt_")
	dev := relay.Device{ID: scouts.NewID("dv"), UserID: u.ID, UserEmail: u.Email, Name: name, CreatedAt: d.now().UTC().Truncate(time.Millisecond)}
	err = d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, d.sql.insertDevice,
			dev.ID, dev.UserID, dev.Name, HashToken(token), dev.CreatedAt.UnixMilli())
		return err
	})
	if err != nil {
		return dev, "", fmt.Errorf("relaydb: add device: %w", err)
	}
	return dev, token, nil
}

func scanDevice(row interface{ Scan(...any) error }) (relay.Device, error) {
	var dv relay.Device
	var created int64
	var seen, revoked sql.NullInt64
	err := row.Scan(&dv.ID, &dv.UserID, &dv.UserEmail, &dv.Name, &dv.PublicKey, &created, &seen, &revoked, &dv.AckedSeq, &dv.Seal)
	dv.CreatedAt = time.UnixMilli(created).UTC()
	dv.LastSeenAt, dv.RevokedAt = store.FromMillis(seen), store.FromMillis(revoked)
	return dv, err
}

// ListDevices lists a user's devices, oldest first.
func (d *DB) ListDevices(ctx context.Context, email string) ([]relay.Device, error) {
	u, err := d.UserByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	rows, err := d.db.Read().QueryContext(ctx, d.sql.devicesOfUser, u.ID)
	if err != nil {
		return nil, fmt.Errorf("relaydb: list devices: %w", err)
	}
	defer rows.Close()
	var out []relay.Device
	for rows.Next() {
		dv, err := scanDevice(rows)
		if err != nil {
			return nil, fmt.Errorf("relaydb: list devices: %w", err)
		}
		out = append(out, dv)
	}
	return out, rows.Err()
}

// DeviceByToken authenticates a device token.
func (d *DB) DeviceByToken(ctx context.Context, token string) (relay.Device, error) {
	dv, err := scanDevice(d.db.Read().QueryRowContext(ctx, d.sql.deviceByTokenHash, HashToken(token)))
	if errors.Is(err, sql.ErrNoRows) {
		return dv, scouts.Errorf(scouts.ENotFound, "unknown device token")
	}
	if err != nil {
		return dv, fmt.Errorf("relaydb: device by token: %w", err)
	}
	return dv, nil
}

// Device returns a device by id.
func (d *DB) Device(ctx context.Context, id string) (relay.Device, error) {
	dv, err := scanDevice(d.db.Read().QueryRowContext(ctx, d.sql.deviceByID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return dv, notFound("device", id)
	}
	if err != nil {
		return dv, fmt.Errorf("relaydb: device: %w", err)
	}
	return dv, nil
}

// RevokeDevice cuts a device off for good; webhook items are no longer
// sealed for it from the next request on.
func (d *DB) RevokeDevice(ctx context.Context, id string) error {
	var user string
	err := d.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, d.sql.revokeDevice, d.now().UnixMilli(), id).Scan(&user)
		if errors.Is(err, sql.ErrNoRows) {
			if _, err := d.Device(ctx, id); err != nil {
				return err
			}
			return scouts.Errorf(scouts.EConflict, "device %s is already revoked", id)
		}
		if err != nil {
			return fmt.Errorf("relaydb: revoke: %w", err)
		}
		return d.hookTargetsChanged(ctx, tx, user)
	})
	if user != "" {
		d.hooks.forgetUser(user)
	}
	return err
}

// RevokedSince lists the devices revoked at or after since.
func (d *DB) RevokedSince(ctx context.Context, since time.Time) ([]string, error) {
	rows, err := d.db.Read().QueryContext(ctx, d.sql.revokedSince, since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("relaydb: revoked devices: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// DeviceConnected records a device's connection: last seen, the sealing
// format it opens (seal, "" for the anonymous box only), and its public key
// on first connection. A different key later is refused: the key is derived
// from the token, so a new key means a different client.
func (d *DB) DeviceConnected(ctx context.Context, id string, publicKey []byte, seal string) error {
	var changedFor string // the user whose webhook answers change
	err := d.tx(ctx, func(tx *sql.Tx) error {
		changedFor = ""
		var cur []byte
		var user, curSeal string
		if err := tx.QueryRowContext(ctx, d.sql.deviceKey, id).Scan(&cur, &curSeal, &user); err != nil {
			return fmt.Errorf("relaydb: device connected: %w", err)
		}
		if cur != nil && len(publicKey) > 0 && string(cur) != string(publicKey) {
			return scouts.Errorf(scouts.EConflict, "device %s presented a different public key than on its first connection", id)
		}
		key := cur
		if key == nil && len(publicKey) > 0 {
			key = publicKey
		}
		if _, err := tx.ExecContext(ctx, d.sql.deviceConnected, d.now().UnixMilli(), key, seal, id); err != nil {
			return err
		}
		// A first key or another seal format changes what webhook items
		// are sealed for; a reconnection as before changes nothing.
		if (cur == nil && key != nil) || seal != curSeal {
			changedFor = user
			return d.hookTargetsChanged(ctx, tx, user)
		}
		return nil
	})
	if changedFor != "" {
		d.hooks.forgetUser(changedFor)
	}
	return err
}

// EveryDeviceRevoked reports whether a user has devices and all of them are
// revoked: nothing can be sealed for the account until a new one is added.
func (d *DB) EveryDeviceRevoked(ctx context.Context, userID string) (bool, error) {
	var total, revoked int
	err := d.db.Read().QueryRowContext(ctx, d.sql.countDevices, userID).Scan(&total, &revoked)
	if err != nil {
		return false, fmt.Errorf("relaydb: count devices: %w", err)
	}
	return total > 0 && revoked == total, nil
}

// Audit records a content-free event.
func (d *DB) Audit(ctx context.Context, userID, scoutID, typ, summary string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, d.sql.insertAudit, userID, scoutID, typ, summary, d.now().UnixMilli())
		return err
	})
}
