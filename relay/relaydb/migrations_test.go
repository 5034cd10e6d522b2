package relaydb_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/store"
	"github.com/scouts-hq/scouts/store/storetest"
)

// oldMigrations reads the migrations as they were before the dialects
// shared one file, a file per dialect (testdata/migrations-v5.txtar),
// keeping those up to version upTo.
func oldMigrations(t *testing.T, upTo int) fstest.MapFS {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "migrations-v5.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	var name string
	var body strings.Builder
	flush := func() {
		if name == "" {
			return
		}
		if v, _ := strconv.Atoi(name[:4]); v <= upTo {
			out[name] = &fstest.MapFile{Data: []byte(body.String())}
		}
		body.Reset()
	}
	// txtar: a line "-- name --" starts a file.
	for _, line := range strings.SplitAfter(string(b), "\n") {
		l := strings.TrimSuffix(line, "\n")
		if n, ok := strings.CutPrefix(l, "-- "); ok && strings.HasSuffix(n, " --") && !strings.Contains(strings.TrimSuffix(n, " --"), " ") {
			flush()
			name = strings.TrimSuffix(n, " --")
			continue
		}
		if name != "" {
			body.WriteString(line)
		}
	}
	flush()
	if len(out) != 2*upTo {
		t.Fatalf("testdata holds %d migrations up to version %d, want %d", len(out), upTo, 2*upTo)
	}
	return out
}

// A database made by the migrations as they were, a file per dialect,
// opens with the present code and has exactly the schema of a new one:
// whether it was made up to the last of them, or only part of the way
// (the rest then comes from the shared files).
func TestOldDatabaseHasTheNewSchema(t *testing.T) {
	ctx := context.Background()
	for _, upTo := range []int{5, 2} {
		t.Run("sqlite/v"+strconv.Itoa(upTo), func(t *testing.T) {
			dir := t.TempDir()
			old := filepath.Join(dir, "old.db")
			sdb, err := store.OpenSQLite(ctx, old, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sdb.MigrateLocked(ctx, "relay", oldMigrations(t, upTo)); err != nil {
				t.Fatal(err)
			}
			sdb.Close()
			got := schemaOf(t, old, sqliteSchema)
			want := schemaOf(t, filepath.Join(dir, "new.db"), sqliteSchema)
			compareSchemas(t, got, want)
		})
		t.Run("postgres/v"+strconv.Itoa(upTo), func(t *testing.T) {
			old := storetest.PostgresDSN(t)
			sdb, err := store.OpenPostgres(ctx, old, 2)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sdb.MigrateLocked(ctx, "relay", oldMigrations(t, upTo)); err != nil {
				t.Fatal(err)
			}
			sdb.Close()
			got := schemaOf(t, old, postgresSchema)
			want := schemaOf(t, storetest.PostgresDSN(t), postgresSchema)
			compareSchemas(t, got, want)
		})
	}
}

// schemaOf opens the database with relaydb (which migrates it) and
// describes its schema, one line per object.
func schemaOf(t *testing.T, dsn string, describe []string) []string {
	t.Helper()
	ctx := context.Background()
	db, err := relaydb.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open %s: %v", filepath.Base(dsn), err)
	}
	db.Close()
	driver, source := "sqlite3", dsn
	if relaydb.IsPostgres(dsn) {
		driver = store.PostgresDriver
	}
	conn, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var schema string
	if relaydb.IsPostgres(dsn) {
		if err := conn.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, q := range describe {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var line []string
			for _, v := range vals {
				// Each PostgreSQL test has a schema of its own: names
				// are compared without it.
				s := v.String
				if schema != "" {
					s = strings.ReplaceAll(s, schema+".", "")
				}
				line = append(line, s)
			}
			out = append(out, strings.Join(line, " | "))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 20 {
		t.Fatalf("the schema description has %d lines; the relay's tables are missing:\n%s", len(out), strings.Join(out, "\n"))
	}
	return out
}

// sqliteSchema describes a SQLite schema by its objects as created
// (ALTER TABLE rewrites a table's CREATE statement).
var sqliteSchema = []string{
	`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`,
}

// postgresSchema describes a PostgreSQL schema by its columns (types,
// nullability, defaults), indexes and constraints.
var postgresSchema = []string{
	`SELECT table_name, ordinal_position, column_name, data_type, is_nullable, column_default
		FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
	`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY tablename, indexname`,
	`SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c
		JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = current_schema() ORDER BY 1, 2`,
	`SELECT sequence_name, data_type FROM information_schema.sequences WHERE sequence_schema = current_schema() ORDER BY 1`,
}

func compareSchemas(t *testing.T, old, fresh []string) {
	t.Helper()
	if slices.Equal(old, fresh) {
		return
	}
	for _, l := range old {
		if !slices.Contains(fresh, l) {
			t.Errorf("only the old database has: %s", l)
		}
	}
	for _, l := range fresh {
		if !slices.Contains(old, l) {
			t.Errorf("only a new database has: %s", l)
		}
	}
	if !t.Failed() {
		t.Errorf("the schemas hold the same lines in another order:\nold:\n%s\nnew:\n%s", strings.Join(old, "\n"), strings.Join(fresh, "\n"))
	}
}
