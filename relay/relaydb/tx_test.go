package relaydb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A transaction PostgreSQL killed as a deadlock victim (or for a
// serialisation failure) committed nothing and is run again, instead of
// failing the session that asked for it; other errors are not retried.
func TestTransientConflictsAreRetried(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, code := range []string{"40P01", "40001"} {
		runs := 0
		err := db.tx(ctx, func(*sql.Tx) error {
			runs++
			if runs < 3 {
				return fmt.Errorf("relaydb: ack: %w", &pgconn.PgError{Code: code, Message: "conflict"})
			}
			return nil
		})
		if err != nil || runs != 3 {
			t.Fatalf("SQLSTATE %s: err %v after %d runs, want success on the third", code, err, runs)
		}
	}
	runs := 0
	boom := errors.New("boom")
	if err := db.tx(ctx, func(*sql.Tx) error { runs++; return boom }); !errors.Is(err, boom) || runs != 1 {
		t.Fatalf("a plain error: %v after %d runs, want it once", err, runs)
	}
	runs = 0
	err = db.tx(ctx, func(*sql.Tx) error { runs++; return &pgconn.PgError{Code: "40P01"} })
	if err == nil || runs != maxTxAttempts {
		t.Fatalf("a conflict that never clears: %v after %d runs, want failure after %d", err, runs, maxTxAttempts)
	}
}
