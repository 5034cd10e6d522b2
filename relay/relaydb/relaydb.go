// Package relaydb stores the relay's data in SQLite (one node) or
// PostgreSQL (several nodes sharing the load), with the same schema and the
// same code; the migrations spell a few column types per dialect
// (migrations.go), and the wake-up mechanism differs.
package relaydb

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// DB is the relay database.
type DB struct {
	db  *store.DB
	dsn string
	now func() time.Time
	// notify wakes the sessions of a user after a commit that queued rows
	// for them; on PostgreSQL the NOTIFY inside the transaction does it
	// across instances, and this in-process hook is not needed.
	notify func(userID string)
	c      *committer
	stmts  stmts
	// wstmts are the SQLite write connection's prepared statements.
	wstmts stmts
	// hooks caches HookTarget's answers.
	hooks hookCache
	// ledger is the model budget's (lease.go).
	ledger *store.Ledger
	// sql is the statements in the database's dialect.
	sql queries
}

// IsPostgres reports whether dsn names a PostgreSQL database.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens the database: a postgres:// URL, or a SQLite file path.
func Open(ctx context.Context, dsn string) (*DB, error) {
	var sdb *store.DB
	var err error
	if IsPostgres(dsn) {
		sdb, err = store.OpenPostgres(ctx, dsn, 0)
	} else {
		// Checkpoints in the background: a commit that crossed the WAL's
		// size limit used to pay for one (18-73 ms on a busy disk), and
		// with group commit every caller of its batch waited for it.
		sdb, err = store.OpenSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"), store.Options{BackgroundCheckpoint: 500 * time.Millisecond})
	}
	if err != nil {
		return nil, fmt.Errorf("relaydb: %w", err)
	}
	migs, err := migrations(sdb.Dialect)
	if err == nil {
		_, err = sdb.MigrateLocked(ctx, "relay", migs)
	}
	if err != nil {
		sdb.Close()
		return nil, fmt.Errorf("relaydb: %w", err)
	}
	d := &DB{db: sdb, dsn: dsn, now: time.Now, sql: newQueries(sdb)}
	d.ledger = store.NewLedger(sdb, d.tx)
	d.startCommitter()
	return d, nil
}

// Close closes the database; writes still waiting for the committer fail.
func (d *DB) Close() error {
	d.stopCommitter()
	d.closeStmts()
	return d.db.Close()
}

// Dialect is the database's SQL dialect.
func (d *DB) Dialect() store.Dialect { return d.db.Dialect }

// DSN is what the database was opened with (for LISTEN connections).
func (d *DB) DSN() string { return d.dsn }

// OnQueued registers the in-process wake-up for new rows.
func (d *DB) OnQueued(fn func(userID string)) { d.notify = fn }

// SetClock replaces the clock (tests).
func (d *DB) SetClock(now func() time.Time) { d.now = now }

// Ping checks the database answers (readiness).
func (d *DB) Ping(ctx context.Context) error { return d.db.Read().PingContext(ctx) }

func (d *DB) q(s string) string { return d.db.Rebind(s) }

// maxTxAttempts bounds how often a transaction is run when PostgreSQL
// keeps choosing it as a deadlock or serialisation victim.
const maxTxAttempts = 5

// tx runs fn in a write transaction. A transaction PostgreSQL aborted as a
// deadlock victim or for a serialisation failure committed nothing, and the
// conflict is transient: it is run again (fn must be safe to re-run, which
// it is when it only sets its results) rather than failing its caller — a
// device session would otherwise end with rows it had committed still
// queued.
func (d *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := d.db.Tx(ctx, fn)
		if err == nil || attempt == maxTxAttempts || !isTransientConflict(err) {
			return err
		}
		// A little jitter, so that the two victims of one conflict do not
		// meet again at once.
		wait := time.Duration(attempt)*time.Millisecond + rand.N(2*time.Millisecond)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// isTransientConflict reports a PostgreSQL deadlock (40P01) or
// serialisation failure (40001).
func isTransientConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// NotifyChannel is the PostgreSQL channel on which commits that queue rows
// announce the user id.
const NotifyChannel = "scouts_queue"

// queuedAfterCommit wakes this process's sessions of a user whose rows a
// transaction queued or expired (on PostgreSQL, other instances hear of it
// through notifyInTx).
func (d *DB) queuedAfterCommit(userID string) {
	if d.notify != nil {
		d.notify(userID)
	}
}

// HashToken is how tokens are kept at rest: their SHA-256. Tokens are 256
// random bits, so a fast hash is enough (no password stretching needed).
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewToken returns a fresh random token with a readable prefix.
func NewToken(prefix string) string {
	b := make([]byte, 32)
	crand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

var errNotFound = errors.New("not found")

func notFound(what, id string) error {
	return scouts.Errorf(scouts.ENotFound, "%s %s not found", what, id)
}

func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "UNIQUE constraint failed") || strings.Contains(s, "duplicate key value") || strings.Contains(s, "SQLSTATE 23505")
}
