package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/scouts-hq/scouts/store"
	"github.com/scouts-hq/scouts/store/storetest"
)

// The model budget's ledger, on both dialects: concurrent reservations
// never pass the cap together, settling gives back what a call did not
// use but never counts below zero, and a day never reserved has spent
// nothing.
func TestLedgerReservesUnderTheCapOnBothDialects(t *testing.T) {
	const table = `CREATE TABLE model_budget (scout_id TEXT NOT NULL, day TEXT NOT NULL,
		spent BIGINT NOT NULL DEFAULT 0 CHECK (spent >= 0), PRIMARY KEY (scout_id, day))`
	open := map[string]func(t *testing.T) *store.DB{
		"sqlite": func(t *testing.T) *store.DB { db, _ := openTemp(t); return db },
		"postgres": func(t *testing.T) *store.DB {
			db, err := store.OpenPostgres(context.Background(), storetest.PostgresDSN(t), 8)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
	}
	for name, openDB := range open {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t)
			if _, err := db.Writer().ExecContext(ctx, table); err != nil {
				t.Fatal(err)
			}
			l := store.NewLedger(db, nil)
			const capTokens, each, workers = 10_000, 300, 40
			var granted atomic.Int32
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, err := l.Reserve(ctx, "sc_a", "2026-05-01", capTokens, each)
					if err != nil {
						t.Error(err)
					} else if ok {
						granted.Add(1)
					}
				}()
			}
			wg.Wait()
			if got, want := granted.Load(), int32(capTokens/each); got != want {
				t.Fatalf("%d reservations granted, want %d (the cap is %d, each %d)", got, want, capTokens, each)
			}
			if spent, err := l.Spent(ctx, "sc_a", "2026-05-01"); err != nil || spent != capTokens/each*each {
				t.Fatalf("spent %d (%v), want %d", spent, err, capTokens/each*each)
			}
			if err := l.Settle(ctx, "sc_a", "2026-05-01", -250); err != nil {
				t.Fatal(err)
			}
			if spent, _ := l.Spent(ctx, "sc_a", "2026-05-01"); spent != capTokens/each*each-250 {
				t.Fatalf("after giving 250 back: spent %d, want %d", spent, capTokens/each*each-250)
			}
			if err := l.Settle(ctx, "sc_a", "2026-05-01", -1_000_000); err != nil {
				t.Fatal(err)
			}
			if spent, _ := l.Spent(ctx, "sc_a", "2026-05-01"); spent != 0 {
				t.Fatalf("after giving back more than was spent: spent %d, want 0", spent)
			}
			if spent, err := l.Spent(ctx, "sc_a", "2026-05-02"); err != nil || spent != 0 {
				t.Fatalf("a day never reserved: spent %d (%v), want 0", spent, err)
			}
			// A settlement on a day never reserved (a call that outlived
			// the ledger's row) still counts.
			if err := l.Settle(ctx, "sc_b", "2026-05-01", 70); err != nil {
				t.Fatal(err)
			}
			if spent, _ := l.Spent(ctx, "sc_b", "2026-05-01"); spent != 70 {
				t.Fatalf("a settlement alone: spent %d, want 70", spent)
			}
		})
	}
}
