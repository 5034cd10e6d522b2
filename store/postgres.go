package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"io/fs"
	"slices"
)

// PostgresDriver is the database/sql driver OpenPostgres uses: pgx's
// (github.com/jackc/pgx/v5/stdlib), so that callers write the same code for
// both dialects. The program that opens PostgreSQL links it (the relay
// does, in relaydb); this package does not, because the desktop agent
// imports it too and must not carry a PostgreSQL client it never uses.
const PostgresDriver = "pgx"

// OpenPostgres opens a PostgreSQL database (a postgres:// URL or key=value
// DSN). Reads and writes share one pool: PostgreSQL handles concurrent
// writers itself.
func OpenPostgres(ctx context.Context, dsn string, maxConns int) (*DB, error) {
	if !slices.Contains(sql.Drivers(), PostgresDriver) {
		return nil, fmt.Errorf("store: open postgres: this program does not link the %q database/sql driver (import _ \"github.com/jackc/pgx/v5/stdlib\")", PostgresDriver)
	}
	pool, err := sql.Open(PostgresDriver, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	if maxConns <= 0 {
		maxConns = 20
	}
	pool.SetMaxOpenConns(maxConns)
	pool.SetMaxIdleConns(maxConns)
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: connect to postgres: %w", err)
	}
	return &DB{Dialect: Postgres, read: pool, write: pool}, nil
}

// migrationLockKey derives the advisory lock key from the schema name so
// that two applications sharing a server do not block each other.
func migrationLockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("scouts-migrate:" + name))
	return int64(h.Sum64())
}

// MigrateLocked is Migrate for databases shared by several processes: on
// PostgreSQL it holds a session advisory lock while migrating, so two relays
// starting at once migrate one after the other (the second finds nothing
// to do). name scopes the lock (e.g. "relay"). On SQLite it is Migrate.
func (db *DB) MigrateLocked(ctx context.Context, name string, fsys fs.FS) (int, error) {
	if db.Dialect != Postgres {
		return db.Migrate(ctx, fsys)
	}
	migs, err := LoadMigrations(fsys, db.Dialect)
	if err != nil {
		return 0, err
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: migration lock: %w", err)
	}
	defer conn.Close()
	key := migrationLockKey(name)
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		return 0, fmt.Errorf("store: migration lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key)
	return db.migrate(ctx, migs)
}
