// Package store is the SQL plumbing shared by the desktop agent and the
// relay: opening a database with the right pragmas, a single-writer
// discipline for SQLite, and versioned migrations from embedded files.
//
// Callers write their queries against *sql.DB/*sql.Tx as usual; what differs
// between SQLite and PostgreSQL (connection set-up, locking, migration file
// selection) lives here so that adding a dialect does not change callers.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"time"

	"github.com/ncruces/go-sqlite3"
	// The database/sql driver only; the package's deprecated embed
	// sub-package prints a warning and is not needed.
	"github.com/ncruces/go-sqlite3/driver"
)

// Dialect names the SQL flavour of a database.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open database with separate read and write paths.
//
// SQLite allows one writer at a time. Rather than let concurrent writers
// collide on SQLITE_BUSY, all writes go through a pool of exactly one
// connection whose transactions start with BEGIN IMMEDIATE, and reads use a
// separate pool of query-only connections that never block the writer (WAL).
type DB struct {
	Dialect Dialect
	read    *sql.DB
	write   *sql.DB
	cp      *checkpointer // nil: SQLite checkpoints inside commits
}

// Options tune how a database is opened.
type Options struct {
	// Readers is the size of the read pool; 0 means one per CPU, at least 2.
	Readers int
	// ReaderIdle, when set, closes a reader connection left unused that
	// long. Each SQLite connection holds memory of its own (its page cache
	// among it, up to 2 MiB): a process idle most of the time need not
	// keep them, and reopening one costs a few milliseconds.
	ReaderIdle time.Duration
	// WriterIdle, when set, closes the writer's connection left unused
	// that long; the next write opens it again (and prepares again the
	// statements prepared on the pool). Zero keeps it open.
	WriterIdle time.Duration
	// Synchronous is SQLite's synchronous pragma: "normal" (default; a
	// process crash loses nothing, a power loss may lose the last commits)
	// or "full".
	Synchronous string
	// BackgroundCheckpoint, when positive, moves SQLite's WAL checkpoints
	// out of commits: the writer never checkpoints, and a background
	// connection runs a PASSIVE checkpoint at most this long after a
	// commit, and a last one on Close (see checkpoint.go).
	BackgroundCheckpoint time.Duration
	// Connect, when set, runs on every new connection of the writer and
	// the readers, before it is used: SQLite's extensions (FTS5) are
	// registered per connection, and the schema of a database that uses
	// one cannot be read or written without it.
	Connect func(*sqlite3.Conn) error
}

// OpenSQLite opens (creating if needed) the SQLite database file at path in
// WAL mode with foreign keys on and a busy timeout.
func OpenSQLite(ctx context.Context, path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("store: open sqlite: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	sync := opts.Synchronous
	if sync == "" {
		sync = "normal"
	}
	if sync != "normal" && sync != "full" {
		return nil, fmt.Errorf("store: open sqlite: synchronous must be normal or full, not %q", sync)
	}
	if err := privateFiles(abs); err != nil {
		return nil, err
	}
	// modeof: the WAL, created and deleted as connections come and go,
	// takes the database's (private) mode rather than the umask's.
	base := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?modeof=" + url.QueryEscape(abs) +
		"&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(" + sync + ")"

	// The writer is opened first: it creates the file and switches it to WAL,
	// which is persistent, so readers opened afterwards find it in WAL mode.
	writeDSN := base + "&_pragma=journal_mode(wal)&_txlock=immediate"
	var cp *checkpointer
	var onConnect func(*sqlite3.Conn) error
	if opts.BackgroundCheckpoint > 0 {
		writeDSN += "&_pragma=wal_autocheckpoint(0)"
		if cp, err = newCheckpointer(base, opts.BackgroundCheckpoint); err != nil {
			return nil, fmt.Errorf("store: open sqlite checkpointer: %w", err)
		}
		onConnect = cp.hook
	}
	if opts.Connect != nil {
		hook := onConnect
		onConnect = func(c *sqlite3.Conn) error {
			if err := opts.Connect(c); err != nil {
				return err
			}
			if hook != nil {
				return hook(c)
			}
			return nil
		}
	}
	// Until it starts, the checkpointer only has a pool to close.
	closeCP := func() {
		if cp != nil {
			cp.close(false)
		}
	}
	write, err := driver.Open(writeDSN, onConnect)
	if err != nil {
		closeCP()
		return nil, fmt.Errorf("store: open sqlite writer: %w", err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(opts.WriterIdle)
	var mode string
	if err := write.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		write.Close()
		closeCP()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	if mode != "wal" {
		write.Close()
		closeCP()
		return nil, fmt.Errorf("store: open sqlite %s: journal mode is %q, want wal (is the file on a network filesystem?)", path, mode)
	}

	read, err := driver.Open(base+"&_pragma=query_only(1)", opts.Connect)
	if err != nil {
		write.Close()
		closeCP()
		return nil, fmt.Errorf("store: open sqlite readers: %w", err)
	}
	n := opts.Readers
	if n <= 0 {
		n = max(runtime.NumCPU(), 2)
	}
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxIdleTime(opts.ReaderIdle)
	if err := read.PingContext(ctx); err != nil {
		write.Close()
		read.Close()
		closeCP()
		return nil, fmt.Errorf("store: open sqlite readers: %w", err)
	}
	if cp != nil {
		cp.start()
	}
	return &DB{Dialect: SQLite, read: read, write: write, cp: cp}, nil
}

// Read returns the pool for queries. On SQLite its connections are
// query-only: a write through it fails instead of racing the writer.
func (db *DB) Read() *sql.DB { return db.read }

// Writer returns the single write connection pool, for callers that manage
// statements themselves; most callers want Tx.
func (db *DB) Writer() *sql.DB { return db.write }

// Tx runs fn in a write transaction and commits it if fn returns nil.
// Writes are serialised: on SQLite only one Tx runs at a time.
func (db *DB) Tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		if rbErr := tx.Rollback(); rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) {
			return errors.Join(err, fmt.Errorf("store: rollback: %w", rbErr))
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// Close closes both pools (and the checkpointer's connection).
func (db *DB) Close() error {
	var cpErr error
	if db.cp != nil {
		cpErr = db.cp.close(true)
	}
	return errors.Join(cpErr, db.read.Close(), db.write.Close())
}

// Millis stores a time as Unix milliseconds, the zero time as NULL: both
// dialects keep times as BIGINT so that queries compare them alike.
func Millis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// FromMillis is the inverse of Millis.
func FromMillis(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}
