// Package localdb is the desktop agent's storage: scouts, suggestions,
// entities, audit, folder cursors and settings in one SQLite file. It
// implements engine.Store and the folder scouts' dirindex.Index.
package localdb

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3/ext/fts5"
	"github.com/scouts-hq/scouts/app/procid"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/learn"
	"github.com/scouts-hq/scouts/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is the desktop database.
type DB struct {
	db *store.DB
	// learnParams tune the learner's fading (the default half-life
	// unless SetLearnParams says otherwise).
	learnParams learn.Params
	// learned keeps recently used models' counts in memory.
	learned *learnCache
	path    string
	// self is this process, as the runs it starts name it (StartRun).
	self LockHolder
	// shared holds the hot inserts, prepared once (see stmtCache).
	shared map[string]*sql.Stmt

	// gen counts write transactions, so that what is kept from reads
	// (OpenProjects) is read again after any write.
	gen    atomic.Uint64
	projMu sync.Mutex
	proj   *projectsCache

	// ledger is the model budget's (budget.go).
	ledger *store.Ledger
}

// Path is the database file's path.
func (d *DB) Path() string { return d.path }

// SetLearnParams sets the learner's parameters; call before use.
func (d *DB) SetLearnParams(p learn.Params) { d.learnParams = p }

// checkpointAfter is how long after a commit the WAL is checkpointed, in
// the background; readerIdle and writerIdle how long an unused reader or
// writer connection stays open.
const (
	checkpointAfter = time.Second
	readerIdle      = 5 * time.Second
	writerIdle      = 5 * time.Second
)

// Open opens (creating and migrating if needed) the database file at path.
func Open(ctx context.Context, path string) (*DB, error) {
	sdb, err := store.OpenSQLite(ctx, path, store.Options{
		// Checkpoints off the commit path: an item from the relay or a
		// folder, a decision, commits without waiting for the WAL to be
		// copied back into the database.
		BackgroundCheckpoint: checkpointAfter,
		// At rest the agent keeps no connection: two readers serve the
		// API, the tray and the scouts (not one per core); they and the
		// writer are let go when unused (each holds 1 MB or more of
		// SQLite's memory, its page cache among it; reopening one costs a
		// few milliseconds).
		Readers:    2,
		ReaderIdle: readerIdle,
		WriterIdle: writerIdle,
		// Search's index is an FTS5 table (migration 0014).
		Connect: fts5.Register,
	})
	if err != nil {
		return nil, err
	}
	migs, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		sdb.Close()
		return nil, fmt.Errorf("localdb: migrations: %w", err)
	}
	if _, err := sdb.Migrate(ctx, migs); err != nil {
		sdb.Close()
		return nil, err
	}
	shared, err := prepareShared(ctx, sdb.Writer(), hotWrites())
	if err != nil {
		sdb.Close()
		return nil, err
	}
	me := procid.Self()
	d := &DB{db: sdb, learned: newLearnCache(), path: path, shared: shared,
		self: LockHolder{PID: me.PID, BootID: me.BootID, Start: me.Start}}
	d.ledger = store.NewLedger(sdb, d.tx)
	return d, nil
}

// Close closes the database.
func (d *DB) Close() error { return errors.Join(closeShared(d.shared), d.db.Close()) }

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error { return d.db.Read().PingContext(ctx) }

func (d *DB) read() *sql.DB { return d.db.Read() }

// tx runs fn in a write transaction; the learner's cached counts follow
// what it committed, and what other reads keep is read again.
func (d *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	// Counted once the transaction has ended, committed or not: a reader
	// that saw the previous count reads again.
	defer d.gen.Add(1)
	var attempts []*sql.Tx
	err := d.db.Tx(ctx, func(tx *sql.Tx) error {
		attempts = append(attempts, tx)
		return fn(tx)
	})
	d.learned.settle(attempts, err == nil)
	return err
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func notFound(what, id string) error {
	return scouts.Errorf(scouts.ENotFound, "%s %s not found", what, id)
}

// rowsErr is a scan helper that turns sql.ErrNoRows into a not-found error.
func rowsErr(err error, what, id string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(what, id)
	}
	return err
}

// queryer is what both *sql.DB and *sql.Tx offer.
type queryer interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}
