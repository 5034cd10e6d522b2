//go:build unix

package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/scouts-hq/scouts/store"
)

// checkPrivate fails unless the database and its WAL and shared-memory
// files are readable by their owner only.
func checkPrivate(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s has mode %#o; want 0600", filepath.Base(p), m)
		}
	}
}

// A new database, its WAL and its shared memory are private whatever the
// umask lets through (0644 under the usual 022).
func TestSQLiteFilesArePrivate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "new.db")
	db, err := store.OpenSQLite(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Writer().ExecContext(ctx, `CREATE TABLE t (x); INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	checkPrivate(t, path)
}

// Files left too open (by an older version, or a copy) are made private
// when the database is opened.
func TestSQLiteFilesTooOpenAreTightened(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := store.OpenSQLite(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Writer().ExecContext(ctx, `CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err = store.OpenSQLite(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Writer().ExecContext(ctx, `INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	checkPrivate(t, path)
}
