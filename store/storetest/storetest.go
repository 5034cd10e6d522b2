// Package storetest gives tests a database of each dialect: a temporary
// SQLite file, or a fresh schema on the PostgreSQL server named by
// $SCOUTS_TEST_POSTGRES (default: the local server's "test" database).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// DefaultPostgres is the server our machines and CI run.
const DefaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresDSN returns the DSN of a new, empty schema on the test server,
// dropped when the test ends. Without a reachable server the test is
// skipped — except in CI (CI=true), where PostgreSQL is part of the
// environment and its absence is a failure.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv("SCOUTS_TEST_POSTGRES")
	if base == "" {
		base = DefaultPostgres
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err == nil {
		err = admin.PingContext(ctx)
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL at %s is not reachable in CI: %v", redact(base), err)
		}
		t.Skipf("skipping: PostgreSQL at %s is not reachable (%v); set SCOUTS_TEST_POSTGRES to run this test", redact(base), err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("SCOUTS_TEST_POSTGRES must be a URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparseable DSN)"
	}
	return u.Redacted()
}
