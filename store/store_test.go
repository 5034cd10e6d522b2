package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/scouts-hq/scouts/store"
	"github.com/scouts-hq/scouts/store/storetest"
)

func openTemp(t *testing.T) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := store.OpenSQLite(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

var twoMigrations = fstest.MapFS{
	"0001_init.sql": {Data: []byte(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
		CREATE INDEX items_name ON items(name);`)},
	"0002_more.sqlite.sql":   {Data: []byte(`ALTER TABLE items ADD COLUMN note TEXT;`)},
	"0002_more.postgres.sql": {Data: []byte(`this is not sqlite and must never run here`)},
	"README.md":              {Data: []byte(`ignored`)},
}

func TestMigrateAppliesEachOnceAndRecordsVersion(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	n, err := db.Migrate(ctx, twoMigrations)
	if err != nil || n != 2 {
		t.Fatalf("first migrate: n=%d err=%v", n, err)
	}
	n, err = db.Migrate(ctx, twoMigrations)
	if err != nil || n != 0 {
		t.Fatalf("second migrate: n=%d err=%v, want 0 applied", n, err)
	}
	if v, _ := db.SchemaVersion(ctx); v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	if _, err := db.Writer().ExecContext(ctx, `INSERT INTO items (name, note) VALUES ('a', 'b')`); err != nil {
		t.Fatalf("migrated schema unusable: %v", err)
	}
}

func TestMigrationFailureRollsBackThatMigrationOnly(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	bad := fstest.MapFS{
		"0001_init.sql": twoMigrations["0001_init.sql"],
		"0002_bad.sql":  {Data: []byte(`CREATE TABLE half (x INTEGER); THIS IS NOT SQL;`)},
	}
	n, err := db.Migrate(ctx, bad)
	if err == nil || n != 1 {
		t.Fatalf("n=%d err=%v, want 1 applied and an error", n, err)
	}
	if v, _ := db.SchemaVersion(ctx); v != 1 {
		t.Fatalf("version %d after failed migration, want 1", v)
	}
	var count int
	db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'half'`).Scan(&count)
	if count != 0 {
		t.Fatal("a failed migration left a table behind: not transactional")
	}
}

func TestRefusesDatabaseNewerThanCode(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	if _, err := db.Migrate(ctx, twoMigrations); err != nil {
		t.Fatal(err)
	}
	older := fstest.MapFS{"0001_init.sql": twoMigrations["0001_init.sql"]}
	_, err := db.Migrate(ctx, older)
	var tooNew *store.ErrSchemaTooNew
	if !errors.As(err, &tooNew) || tooNew.Database != 2 || tooNew.Code != 1 {
		t.Fatalf("err = %v, want ErrSchemaTooNew{2,1}", err)
	}
}

func TestLoadMigrationsRejectsGapsAndDuplicates(t *testing.T) {
	gap := fstest.MapFS{"0001_a.sql": {Data: []byte("")}, "0003_c.sql": {Data: []byte("")}}
	if _, err := store.LoadMigrations(gap, store.SQLite); err == nil {
		t.Error("gap accepted")
	}
	dup := fstest.MapFS{"0001_a.sql": {Data: []byte("")}, "0001_b.sqlite.sql": {Data: []byte("")}}
	if _, err := store.LoadMigrations(dup, store.SQLite); err == nil {
		t.Error("duplicate version accepted")
	}
	badName := fstest.MapFS{"init.sql": {Data: []byte("")}}
	if _, err := store.LoadMigrations(badName, store.SQLite); err == nil {
		t.Error("unnumbered file accepted")
	}
}

func TestReadPoolIsQueryOnly(t *testing.T) {
	ctx := context.Background()
	db, _ := openTemp(t)
	db.Migrate(ctx, twoMigrations)
	if _, err := db.Read().ExecContext(ctx, `INSERT INTO items (name) VALUES ('x')`); err == nil {
		t.Fatal("write through the read pool succeeded")
	}
}

// Concurrent writers from two handles on one file must all commit: the
// single-writer pool plus BEGIN IMMEDIATE and the busy timeout turn contention
// into waiting, never into SQLITE_BUSY errors.
func TestConcurrentWritersAcrossHandlesAllCommit(t *testing.T) {
	ctx := context.Background()
	db1, path := openTemp(t)
	if _, err := db1.Migrate(ctx, twoMigrations); err != nil {
		t.Fatal(err)
	}
	db2, err := store.OpenSQLite(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := db1
			if i%2 == 1 {
				db = db2
			}
			errs <- db.Tx(ctx, func(tx *sql.Tx) error {
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM items`).Scan(&n); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, `INSERT INTO items (name) VALUES (?)`, fmt.Sprint("item-", n))
				return err
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Each transaction read the count and inserted "item-<count>": with
	// serialised writers the names are unique and all 200 rows exist.
	var n int
	db1.Read().QueryRowContext(ctx, `SELECT COUNT(DISTINCT name) FROM items`).Scan(&n)
	if n != 200 {
		t.Fatalf("%d distinct rows, want 200", n)
	}
}

// Two processes migrating one PostgreSQL database at once: the advisory lock
// makes one wait, and every migration is applied exactly once.
func TestPostgresConcurrentMigrationsApplyOnce(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	ctx := context.Background()
	migs := fstest.MapFS{
		"0001_init.sql":          {Data: []byte(`CREATE TABLE items (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);`)},
		"0002_more.postgres.sql": {Data: []byte(`ALTER TABLE items ADD COLUMN note TEXT; SELECT pg_sleep(0.2);`)},
		"0002_more.sqlite.sql":   {Data: []byte(`not for postgres`)},
	}
	var wg sync.WaitGroup
	applied := make(chan int, 4)
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := store.OpenPostgres(ctx, dsn, 2)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			n, err := db.MigrateLocked(ctx, "test", migs)
			applied <- n
			errs <- err
		}()
	}
	wg.Wait()
	close(applied)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for n := range applied {
		total += n
	}
	if total != 2 {
		t.Fatalf("%d migrations applied across 4 processes, want 2", total)
	}
	db, _ := store.OpenPostgres(ctx, dsn, 1)
	defer db.Close()
	if _, err := db.Writer().ExecContext(ctx, db.Rebind(`INSERT INTO items (name, note) VALUES (?, ?)`), "a", "b"); err != nil {
		t.Fatal(err)
	}
}

func TestRebindLeavesStringLiteralsAlone(t *testing.T) {
	db := &store.DB{Dialect: store.Postgres}
	got := db.Rebind(`SELECT '?' FROM t WHERE a = ? AND b = '??' AND c = ?`)
	if got != `SELECT '?' FROM t WHERE a = $1 AND b = '??' AND c = $2` {
		t.Fatal(got)
	}
}
