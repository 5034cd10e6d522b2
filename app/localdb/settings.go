package localdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Setting returns a setting's value and whether it is set.
func (d *DB) Setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := d.read().QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("localdb: read setting %s: %w", key, err)
	}
	return v, true, nil
}

// SetSetting stores a setting.
func (d *DB) SetSetting(ctx context.Context, key, value string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		if err != nil {
			return fmt.Errorf("localdb: set setting %s: %w", key, err)
		}
		return nil
	})
}

// DeleteSetting removes a setting; removing one that is not set is no
// error.
func (d *DB) DeleteSetting(ctx context.Context, key string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key); err != nil {
			return fmt.Errorf("localdb: delete setting %s: %w", key, err)
		}
		return nil
	})
}
