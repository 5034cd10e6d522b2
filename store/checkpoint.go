package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// SQLite in WAL mode copies the log back into the database ("checkpoints")
// when it has grown past 1000 pages, inside whichever commit crossed that
// line: that commit pays for writing back and syncing the pages, tens of
// milliseconds on a busy disk, while the others take tens of microseconds.
// With Options.BackgroundCheckpoint the writer never checkpoints; a
// goroutine with its own connection does, in PASSIVE mode (it waits for no
// reader or writer, and none waits for it), on a timer.

// checkpointer runs PASSIVE checkpoints every interval until stopped.
type checkpointer struct {
	conn     *sql.DB
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

func startCheckpointer(base string, every time.Duration) (*checkpointer, error) {
	conn, err := sql.Open("sqlite3", base)
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	cp := &checkpointer{conn: conn, stop: make(chan struct{}), done: make(chan struct{})}
	go cp.run(every)
	return cp, nil
}

func (cp *checkpointer) run(every time.Duration) {
	defer close(cp.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-cp.stop:
			return
		case <-t.C:
		}
		// A failed or partial checkpoint (a reader still on old pages) is
		// retried on the next tick; the log only grows meanwhile.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var busy, logFrames, done int
		cp.conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done)
		cancel()
	}
}

// close stops the checkpoints; closing twice is harmless, as it is for
// the pools.
func (cp *checkpointer) close() error {
	cp.stopOnce.Do(func() { close(cp.stop) })
	<-cp.done
	return cp.conn.Close()
}
