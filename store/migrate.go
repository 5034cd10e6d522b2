package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads the migrations for dialect d from the root of fsys.
//
// File names are NNNN_name.sql (every dialect) or NNNN_name.<dialect>.sql
// (one dialect only; e.g. 0003_queue.postgres.sql beside
// 0003_queue.sqlite.sql). Versions must be unique per dialect and start at 1
// without gaps, so that a missing file is caught at start-up rather than
// leaving a database half-migrated.
func LoadMigrations(fsys fs.FS, d Dialect) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	byVersion := map[int]Migration{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		stem := strings.TrimSuffix(name, ".sql")
		if i := strings.LastIndexByte(stem, '.'); i >= 0 {
			if Dialect(stem[i+1:]) != d {
				continue
			}
			stem = stem[:i]
		}
		num, label, ok := strings.Cut(stem, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migration %q: name must look like 0001_what.sql", name)
		}
		if prev, dup := byVersion[v]; dup {
			return nil, fmt.Errorf("store: migrations %q and %q share version %d", prev.Name, name, v)
		}
		body, err := fs.ReadFile(fsys, path.Clean(name))
		if err != nil {
			return nil, fmt.Errorf("store: read migration %q: %w", name, err)
		}
		byVersion[v] = Migration{Version: v, Name: label, SQL: string(body)}
	}
	out := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("store: migration %d is missing (found %d next)", i+1, m.Version)
		}
	}
	return out, nil
}

// ErrSchemaTooNew is returned when the database was migrated by a newer
// build: running older code against it could corrupt data it does not know.
type ErrSchemaTooNew struct {
	Database, Code int
}

func (e *ErrSchemaTooNew) Error() string {
	return fmt.Sprintf("store: database schema is version %d but this build knows only up to %d; upgrade Scouts or use another data directory", e.Database, e.Code)
}

// Migrate brings the database up to the newest migration in fsys, applying
// each pending migration and its version row in one transaction.
// It returns how many migrations it applied.
func (db *DB) Migrate(ctx context.Context, fsys fs.FS) (int, error) {
	migs, err := LoadMigrations(fsys, db.Dialect)
	if err != nil {
		return 0, err
	}
	// Each migration runs in a BEGIN IMMEDIATE transaction that re-checks its
	// version row, so two processes migrating one SQLite file at once apply
	// every migration exactly once.
	return db.migrate(ctx, migs)
}

func (db *DB) migrate(ctx context.Context, migs []Migration) (int, error) {
	create := `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at BIGINT NOT NULL
	)`
	if _, err := db.write.ExecContext(ctx, create); err != nil {
		return 0, fmt.Errorf("store: create schema_migrations: %w", err)
	}
	current, err := db.SchemaVersion(ctx)
	if err != nil {
		return 0, err
	}
	if current > len(migs) {
		return 0, &ErrSchemaTooNew{Database: current, Code: len(migs)}
	}
	applied := 0
	for _, m := range migs[current:] {
		err := db.Tx(ctx, func(tx *sql.Tx) error {
			// Re-check inside the transaction: another process may have
			// applied this version since we read it.
			var done int
			if err := tx.QueryRowContext(ctx, db.Rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.Version).Scan(&done); err != nil {
				return err
			}
			if done > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, db.Rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
				m.Version, m.Name, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("store: migration %04d_%s: %w", m.Version, m.Name, err)
		}
		applied++
	}
	return applied, nil
}

// SchemaVersion is the highest applied migration, 0 for a new database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := db.write.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: read schema version: %w", err)
	}
	return int(v.Int64), nil
}

// Rebind turns the portable '?' placeholders of q into the dialect's own
// ($1, $2, ... on PostgreSQL). Question marks inside string literals are left
// alone.
func (db *DB) Rebind(q string) string {
	if db.Dialect != Postgres {
		return q
	}
	var b strings.Builder
	n, inStr := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			inStr = !inStr
			b.WriteByte(c)
		case c == '?' && !inStr:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
