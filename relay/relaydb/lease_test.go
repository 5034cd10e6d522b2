package relaydb_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/store/storetest"
)

// twoInstances opens one database twice, as two relay instances do.
func twoInstances(t *testing.T, fn func(t *testing.T, a, b *relaydb.DB)) {
	open := func(t *testing.T, dsn string) *relaydb.DB {
		t.Helper()
		db, err := relaydb.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	t.Run("sqlite", func(t *testing.T) {
		dsn := filepath.Join(t.TempDir(), "relay.db")
		fn(t, open(t, dsn), open(t, dsn))
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := storetest.PostgresDSN(t)
		fn(t, open(t, dsn), open(t, dsn))
	})
}

// A scout's sync lease has one holder at a time across instances; it
// passes to another only when released or expired, and the old holder then
// finds it lost.
func TestSyncLeaseHasOneHolder(t *testing.T) {
	twoInstances(t, func(t *testing.T, a, b *relaydb.DB) {
		ctx := context.Background()
		now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		var clock atomic.Pointer[time.Time]
		clock.Store(&now)
		for _, db := range []*relaydb.DB{a, b} {
			db.SetClock(func() time.Time { return *clock.Load() })
		}
		const ttl = time.Minute
		acquire := func(db *relaydb.DB, holder string) bool {
			t.Helper()
			ok, err := db.AcquireSyncLease(ctx, "sc_1", holder, ttl)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		// Racing for a free lease: exactly one wins.
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, holder := a, "A"
				if i%2 == 1 {
					db, holder = b, "B"
				}
				if ok, err := db.AcquireSyncLease(ctx, "sc_race", holder+string(rune('0'+i)), ttl); err != nil {
					t.Error(err)
				} else if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Fatalf("%d holders of one free lease, want 1", n)
		}

		if !acquire(a, "A") || acquire(b, "B") {
			t.Fatal("B took a lease A holds")
		}
		if !acquire(a, "A") {
			t.Fatal("A could not take its own lease again")
		}
		later := now.Add(ttl - time.Second)
		clock.Store(&later)
		if ok, err := a.RenewSyncLease(ctx, "sc_1", "A", ttl); err != nil || !ok {
			t.Fatalf("A renews: %v %v", ok, err)
		}
		// A stops renewing (it died): after the ttl B takes it over.
		expired := later.Add(ttl)
		clock.Store(&expired)
		if !acquire(b, "B") {
			t.Fatal("B could not take an expired lease")
		}
		if ok, err := a.RenewSyncLease(ctx, "sc_1", "A", ttl); err != nil || ok {
			t.Fatalf("A renewed a lease B holds: %v %v", ok, err)
		}
		if err := a.ReleaseSyncLease(ctx, "sc_1", "A"); err != nil {
			t.Fatal(err)
		}
		if acquire(a, "A") {
			t.Fatal("A's release freed B's lease")
		}
		if err := b.ReleaseSyncLease(ctx, "sc_1", "B"); err != nil {
			t.Fatal(err)
		}
		if !acquire(a, "A") {
			t.Fatal("a released lease could not be taken")
		}
	})
}

// The model budget's ledger is shared by instances: concurrent
// reservations through both never pass the cap together, and what was
// spent survives closing them.
func TestModelBudgetSharedByInstances(t *testing.T) {
	twoInstances(t, func(t *testing.T, a, b *relaydb.DB) {
		ctx := context.Background()
		day := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return day }
		budgets := []triage.Budget{triage.LedgerBudget{Ledger: a, Now: clock}, triage.LedgerBudget{Ledger: b, Now: clock}}
		const capTokens, each, workers = 10_000, 700, 30
		var granted atomic.Int32
		var wg sync.WaitGroup
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bud := budgets[i%2]
				r, ok, err := bud.Reserve(ctx, "sc_1", capTokens, each)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					granted.Add(1)
					if err := bud.Commit(ctx, r, each); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		want := capTokens / each
		if got := int(granted.Load()); got != want {
			t.Fatalf("%d reservations granted across two instances, want %d", got, want)
		}
		// What a call did not use is given back, on either instance.
		r, ok, err := budgets[0].Reserve(ctx, "sc_1", capTokens, capTokens-want*each)
		if err != nil || !ok {
			t.Fatalf("the rest of the cap: %v %v", ok, err)
		}
		if err := budgets[1].Commit(ctx, r, 100); err != nil {
			t.Fatal(err)
		}
		spentA, err := a.Spent(ctx, "sc_1", "2026-05-01")
		if err != nil {
			t.Fatal(err)
		}
		spentB, _ := b.Spent(ctx, "sc_1", "2026-05-01")
		if spentA != want*each+100 || spentB != spentA {
			t.Fatalf("spent %d (A) and %d (B), want %d each", spentA, spentB, want*each+100)
		}
	})
}

// A Gmail scout's own model caps are kept with it, and changed (or
// cleared) by its desktop's next configuration, in either mode.
func TestGmailScoutKeepsItsModelCaps(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		f := setup(t, db, "ann@example.com")
		upsert := func(mode string, day, run int) relay.CloudScout {
			t.Helper()
			_, _, err := db.ApplyOnce(ctx, f.user.ID, scouts.NewID("op"), func(tx *sql.Tx) ([]byte, error) {
				return []byte(`{}`), db.UpsertScout(ctx, tx, relay.CloudScout{ID: "sc_mail", UserID: f.user.ID, Kind: relay.KindGmail,
					Name: "Mail", Mode: mode, Enabled: true,
					Gmail: &relay.GmailScout{Email: "ann@example.com", TokenSealed: []byte("sealed"), ModelDayTokens: day, ModelRunTokens: run}})
			})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := db.GmailScout(ctx, "sc_mail")
			if err != nil {
				t.Fatal(err)
			}
			return sc
		}
		if sc := upsert(relay.ModeRelayTriage, 50_000, 5_000); sc.Gmail.ModelDayTokens != 50_000 || sc.Gmail.ModelRunTokens != 5_000 {
			t.Fatalf("caps %d/%d, want 50000/5000", sc.Gmail.ModelDayTokens, sc.Gmail.ModelRunTokens)
		}
		if sc := upsert(relay.ModeRelayTriage, 0, 0); sc.Gmail.ModelDayTokens != 0 || sc.Gmail.ModelRunTokens != 0 {
			t.Fatalf("caps %d/%d after clearing them", sc.Gmail.ModelDayTokens, sc.Gmail.ModelRunTokens)
		}
		if sc := upsert(relay.ModeRelayPing, 700, 0); sc.Gmail.ModelDayTokens != 700 {
			t.Fatalf("relay-ping: cap %d", sc.Gmail.ModelDayTokens)
		}
	})
}
