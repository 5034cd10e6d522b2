package localdb_test

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts/triage"
)

func openDB(t *testing.T, path string) *localdb.DB {
	t.Helper()
	db, err := localdb.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Concurrent runs reserving from one scout's day never pass its cap
// together, and the count survives reopening the database.
func TestModelBudgetLedger(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scouts.db")
	db := openDB(t, path)
	day := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	b := &triage.CappedBudget{Inner: triage.LedgerBudget{Ledger: db, Now: func() time.Time { return day }}}
	const capTokens, each, workers = 10_000, 300, 40
	var granted atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, ok, err := b.Reserve(ctx, "sc_a", capTokens, each)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				granted.Add(1)
				if err := b.Commit(ctx, r, each); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if got, want := granted.Load(), int32(capTokens/each); got != want {
		t.Fatalf("%d reservations granted, want %d (the cap is %d, each %d)", got, want, capTokens, each)
	}
	spent, err := db.Spent(ctx, "sc_a", "2026-05-01")
	if err != nil || spent != capTokens/each*each {
		t.Fatalf("spent %d (%v), want %d", spent, err, capTokens/each*each)
	}
	// Settling gives back what a call did not use.
	r, ok, err := b.Reserve(ctx, "sc_a", capTokens, 100)
	if err != nil || !ok {
		t.Fatalf("reserve: %v %v", ok, err)
	}
	if err := b.Commit(ctx, r, 40); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openDB(t, path)
	if spent, err := db.Spent(ctx, "sc_a", "2026-05-01"); err != nil || spent != capTokens/each*each+40 {
		t.Fatalf("after reopening: spent %d (%v), want %d", spent, err, capTokens/each*each+40)
	}
	// The next UTC day starts from zero.
	next := day.Add(24 * time.Hour)
	b2 := triage.LedgerBudget{Ledger: db, Now: func() time.Time { return next }}
	if _, ok, err := b2.Reserve(ctx, "sc_a", capTokens, capTokens); err != nil || !ok {
		t.Fatalf("a new day refused its whole cap: %v %v", ok, err)
	}
}

// A scout's own caps lower the global one, its run cap bounds one run, and
// every refusal is reported with when the day resets.
func TestCappedBudgetScoutCaps(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "scouts.db"))
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var refusals []triage.Refusal
	b := &triage.CappedBudget{Inner: triage.LedgerBudget{Ledger: db, Now: func() time.Time { return now }},
		Caps: func(_ context.Context, scout string) (triage.Caps, error) {
			return triage.Caps{Day: 1000, Run: 400}, nil
		},
		Refused: func(r triage.Refusal) { refusals = append(refusals, r) },
		Now:     func() time.Time { return now }}
	run := triage.WithRunAllowance(ctx, "sc_a", 400)
	if _, ok, _ := b.Reserve(run, "sc_a", 200_000, 300); !ok {
		t.Fatal("a reservation within both caps was refused")
	}
	if _, ok, _ := b.Reserve(run, "sc_a", 200_000, 200); ok {
		t.Fatal("a run passed its cap of 400")
	}
	if len(refusals) != 1 || !refusals[0].Run || refusals[0].Cap != 400 {
		t.Fatalf("refusals %+v, want one for the run", refusals)
	}
	// Another run has its own allowance; the day's 1000 bounds them all.
	run2 := triage.WithRunAllowance(ctx, "sc_a", 400)
	if _, ok, _ := b.Reserve(run2, "sc_a", 200_000, 400); !ok {
		t.Fatal("a second run was refused within its own cap")
	}
	run3 := triage.WithRunAllowance(ctx, "sc_a", 400)
	if _, ok, _ := b.Reserve(run3, "sc_a", 200_000, 400); ok {
		t.Fatal("the scout passed its day cap of 1000")
	}
	last := refusals[len(refusals)-1]
	if last.Run || last.Cap != 1000 || !last.ResetAt.Equal(time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("day refusal %+v, want cap 1000 resetting at midnight UTC", last)
	}
}
