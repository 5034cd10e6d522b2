package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/store"
)

// With ReaderIdle, reader connections left unused are closed (the writer
// stays), and reading again opens one.
func TestReadersLetGoWhenIdle(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := store.OpenSQLite(ctx, path, store.Options{Readers: 2, ReaderIdle: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitFiles := func(what string, ok func(int) bool) {
		t.Helper()
		pollUntil(t, func() bool { return ok(openFilesOf(t, path)) }, func() string {
			return fmt.Sprintf("%s: %d open files on the database", what, openFilesOf(t, path))
		})
	}
	waitFiles("idle after open", func(n int) bool { return n == 1 }) // the writer's
	// Two reads at once hold both readers.
	tx1, err := db.Read().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx2, err := db.Read().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx1.QueryRow(`SELECT 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := tx2.QueryRow(`SELECT 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if got := openFilesOf(t, path); got != 3 {
		t.Fatalf("%d open files on the database with two reads in flight, want 3", got)
	}
	tx1.Rollback()
	tx2.Rollback()
	waitFiles("idle after reading", func(n int) bool { return n == 1 })
	if err := db.Read().QueryRow(`SELECT 2`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("reading after the readers were let go: %d %v", n, err)
	}
}

// With WriterIdle, the writer's connection left unused is closed too, and
// the next write, through a statement prepared on the pool before, opens
// it again.
func TestWriterLetGoWhenIdle(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := store.OpenSQLite(ctx, path, store.Options{Readers: 2, ReaderIdle: 50 * time.Millisecond,
		WriterIdle: 50 * time.Millisecond, BackgroundCheckpoint: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Writer().ExecContext(ctx, `CREATE TABLE t (v INTEGER)`); err != nil {
		t.Fatal(err)
	}
	ins, err := db.Writer().PrepareContext(ctx, `INSERT INTO t (v) VALUES (?)`)
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	for round := 1; round <= 2; round++ {
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.StmtContext(ctx, ins).ExecContext(ctx, round)
			return err
		}); err != nil {
			t.Fatalf("write %d: %v", round, err)
		}
		pollUntil(t, func() bool { return openFilesOf(t, path) == 0 }, func() string {
			return fmt.Sprintf("after write %d: %d open files on the database", round, openFilesOf(t, path))
		})
	}
	var n int
	if err := db.Read().QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d rows (%v), want 2", n, err)
	}
}
