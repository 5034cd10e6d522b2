package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// SQLite in WAL mode copies the log back into the database ("checkpoints")
// when it has grown past 1000 pages, inside whichever commit crossed that
// line: that commit pays for writing back and syncing the pages, tens of
// milliseconds on a busy disk, while the others take tens of microseconds.
// With Options.BackgroundCheckpoint the writer never checkpoints; a
// goroutine with its own connection does, in PASSIVE mode (it waits for no
// reader or writer, and none waits for it), at most that interval after a
// commit. It hears of commits through the writer's WAL hook, so a database
// nobody writes to costs no wake-ups (the desktop agent is mostly idle),
// and its connection is closed between bursts.

// checkpointer runs PASSIVE checkpoints after commits until stopped.
type checkpointer struct {
	conn     *sql.DB
	every    time.Duration
	dirty    chan struct{} // a commit happened since the last checkpoint began
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	err      error
}

func newCheckpointer(base string, every time.Duration) (*checkpointer, error) {
	conn, err := sql.Open("sqlite3", base)
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	// Kept across a steady stream of commits, let go when they stop.
	conn.SetConnMaxIdleTime(max(2*every, time.Second))
	return &checkpointer{conn: conn, every: every, dirty: make(chan struct{}, 1), stop: make(chan struct{}),
		done: make(chan struct{})}, nil
}

// hook runs on each new writer connection: commits are heard of rather
// than checkpointed (registering a WAL hook also replaces SQLite's
// automatic checkpoint).
func (cp *checkpointer) hook(c *sqlite3.Conn) error {
	if err := c.WALAutoCheckpoint(0); err != nil {
		return fmt.Errorf("store: wal_autocheckpoint: %w", err)
	}
	c.WALHook(func(*sqlite3.Conn, string, int) error {
		select {
		case cp.dirty <- struct{}{}:
		default:
		}
		return nil
	})
	return nil
}

func (cp *checkpointer) start() { go cp.run() }

func (cp *checkpointer) run() {
	defer close(cp.done)
	for {
		select {
		case <-cp.stop:
			return
		case <-cp.dirty:
		}
		// The commits of the next interval are checkpointed together.
		t := time.NewTimer(cp.every)
		select {
		case <-cp.stop:
			t.Stop()
			return
		case <-t.C:
		}
		// A failed or partial checkpoint (a reader still on old pages) is
		// tried again after the next commit; the log only grows meanwhile.
		cp.checkpoint()
	}
}

func (cp *checkpointer) checkpoint() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var busy, logFrames, done int
	if err := cp.conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	return nil
}

// close stops the checkpoints after a last one, if start was called;
// closing twice is harmless, as it is for the pools.
func (cp *checkpointer) close(started bool) error {
	cp.stopOnce.Do(func() {
		close(cp.stop)
		if started {
			<-cp.done
			cp.err = cp.checkpoint()
		}
		cp.err = errors.Join(cp.err, cp.conn.Close())
	})
	return cp.err
}
