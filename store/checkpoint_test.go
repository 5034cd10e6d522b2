package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/store"
)

// writePages commits n transactions of one 4 KiB row each: well past the
// 1000 pages after which SQLite checkpoints inside a commit by default.
func writePages(t *testing.T, db *store.DB, n int) {
	t.Helper()
	ctx := context.Background()
	if err := db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`CREATE TABLE IF NOT EXISTS pages (id INTEGER PRIMARY KEY, data BLOB)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, 4000)
	for i := range n {
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO pages (data) VALUES (?)`, blob)
			return err
		}); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// With background checkpoints, no commit copies the log back into the
// database (the database file keeps its size however much is written),
// and the background connection does (the file then grows to hold the
// data).
func TestBackgroundCheckpointsLeaveCommitsAlone(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	// An interval longer than the test: only commits could checkpoint.
	db, err := store.OpenSQLite(ctx, path, store.Options{BackgroundCheckpoint: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	writePages(t, db, 1500)
	if size := fileSize(t, path); size > 100<<10 {
		t.Fatalf("the database file grew to %d bytes: a commit checkpointed", size)
	}
	db.Close()

	path = filepath.Join(t.TempDir(), "test.db")
	db, err = store.OpenSQLite(ctx, path, store.Options{BackgroundCheckpoint: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	writePages(t, db, 1500)
	pollUntil(t, func() bool { return fileSize(t, path) >= 1500*4000 }, func() string {
		return fmt.Sprintf("the database file holds %d bytes: no background checkpoint ran", fileSize(t, path))
	})
	var n int
	if err := db.Read().QueryRow(`SELECT COUNT(*) FROM pages`).Scan(&n); err != nil || n != 1500 {
		t.Fatalf("rows after checkpoints: %d %v", n, err)
	}
}

// pollUntil checks done every 10 ms for up to 30 s and fails with what
// says otherwise. These tests poll because what they wait for has no
// event: database/sql closes idle connections in its own goroutine, and
// the checkpointer announces nothing.
func pollUntil(t *testing.T, done func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %s", what())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openFilesOf counts this process's open descriptors on path (Linux).
func openFilesOf(t *testing.T, path string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("needs /proc/self/fd")
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// The checkpoints follow commits: once writes stop, the checkpointer
// lets its SQLite connection go (an idle agent keeps only what it uses),
// and it opens one again for the next burst.
func TestBackgroundCheckpointerLetsGoWhenIdle(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := store.OpenSQLite(ctx, path, store.Options{BackgroundCheckpoint: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	idle := openFilesOf(t, path)
	for burst := range 2 {
		writePages(t, db, 300)
		pollUntil(t, func() bool { return fileSize(t, path) >= int64(burst+1)*300*4000 }, func() string {
			return fmt.Sprintf("burst %d: no background checkpoint", burst)
		})
		pollUntil(t, func() bool { return openFilesOf(t, path) <= idle }, func() string {
			return fmt.Sprintf("burst %d: %d open files on the database after the last commit, %d before any", burst, openFilesOf(t, path), idle)
		})
	}
}
