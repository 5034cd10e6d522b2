package relaydb

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/store/storetest"
)

// eachDB runs fn on SQLite and on PostgreSQL.
func eachDB(t *testing.T, fn func(t *testing.T, d *DB)) {
	for _, tc := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "relay.db") }},
		{"postgres", func(t *testing.T) string { return storetest.PostgresDSN(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Open(context.Background(), tc.dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			fn(t, d)
		})
	}
}

// batchUser adds a user with a webhook scout and returns their ids.
func batchUser(t *testing.T, d *DB, email string) (user, scout string) {
	t.Helper()
	ctx := context.Background()
	u, err := d.AddUser(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	scout = "sc_" + u.ID
	if _, _, err := d.ApplyOnce(ctx, u.ID, "op-"+scout, func(tx *sql.Tx) ([]byte, error) {
		return []byte("{}"), d.UpsertScout(ctx, tx, relay.CloudScout{ID: scout, UserID: u.ID, Kind: relay.KindWebhook, Name: "hook", Enabled: true, HookTokenHash: "h"})
	}); err != nil {
		t.Fatal(err)
	}
	return u.ID, scout
}

func itemReq(it NewItem) *writeReq {
	return &writeReq{ctx: context.Background(), item: &it, done: make(chan writeRes, 1)}
}

// Requests written in one transaction keep every guarantee of requests
// written alone: a repeated idempotency key or source ref inside the batch
// is one row, the later request answered as its duplicate; sequences stay
// dense per user, in arrival order; push hints share the transaction.
func TestBatchKeepsIdempotencyAndSequences(t *testing.T) {
	eachDB(t, func(t *testing.T, d *DB) {
		ctx := context.Background()
		ann, annScout := batchUser(t, d, "ann@example.com")
		bob, bobScout := batchUser(t, d, "bob@example.com")
		reqs := []*writeReq{
			itemReq(NewItem{UserID: ann, ScoutID: annScout, SourceType: "webhook", Verdict: "relevant", IdempotencyKeyHash: "k1",
				Sealed: map[string][]byte{"dv_1": {1}}}),
			itemReq(NewItem{UserID: bob, ScoutID: bobScout, SourceType: "webhook", Verdict: "relevant", IdempotencyKeyHash: "k1"}),
			itemReq(NewItem{UserID: ann, ScoutID: annScout, SourceType: "webhook", Verdict: "relevant", IdempotencyKeyHash: "k1"}),
			{ctx: ctx, hint: &pushHint{email: "Ann@Example.com", historyID: 42}, done: make(chan writeRes, 1)},
			itemReq(NewItem{UserID: ann, ScoutID: annScout, SourceType: "gmail", SourceRef: "m-1", Verdict: "relevant"}),
			itemReq(NewItem{UserID: ann, ScoutID: annScout, SourceType: "gmail", SourceRef: "m-1", Verdict: "relevant"}),
			itemReq(NewItem{UserID: ann, ScoutID: annScout, SourceType: "webhook", Verdict: "relevant"}),
		}
		res, err := d.writeBatch(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].dup || res[2].row.ID != res[0].row.ID || !res[2].dup {
			t.Fatalf("same key twice in a batch: %+v then %+v, want one row, the second a duplicate", res[0], res[2])
		}
		if res[1].dup || res[1].row.ID == res[0].row.ID {
			t.Fatalf("the same key on another scout is another item: %+v", res[1])
		}
		if res[4].dup || res[5].row.ID != res[4].row.ID || !res[5].dup {
			t.Fatalf("same ref twice in a batch: %+v then %+v", res[4], res[5])
		}
		if got := [4]int64{res[0].row.Seq, res[4].row.Seq, res[6].row.Seq, res[1].row.Seq}; got != [4]int64{1, 2, 3, 1} {
			t.Fatalf("sequences %v, want ann 1, 2, 3 in arrival order and bob 1", got)
		}
		depth, _ := d.QueueDepth(ctx)
		if depth[relay.StatusQueued] != 4 {
			t.Fatalf("%d rows queued, want 4", depth[relay.StatusQueued])
		}
		p, _ := d.Pending(ctx, ann, "dv_1", 0, 10)
		if len(p) != 3 || string(p[0].Sealed) != "\x01" {
			t.Fatalf("ann's pending rows: %+v", p)
		}
		hints, _ := d.PushHints(ctx, 10)
		if len(hints) != 1 || hints[0].Email != "ann@example.com" || hints[0].HistoryID != 42 {
			t.Fatalf("push hints: %+v", hints)
		}
		// A later batch with the same key answers the first row again.
		again, err := d.writeBatch(ctx, []*writeReq{itemReq(NewItem{UserID: ann, ScoutID: annScout, SourceType: "webhook", Verdict: "relevant", IdempotencyKeyHash: "k1"})})
		if err != nil || !again[0].dup || again[0].row.ID != res[0].row.ID {
			t.Fatalf("the key in a later batch: %+v %v", again, err)
		}
	})
}

// A request the database refuses (here: a scout that does not exist)
// fails alone; the requests written with it are queued.
func TestBatchFailsOnlyTheBadRequest(t *testing.T) {
	eachDB(t, func(t *testing.T, d *DB) {
		ann, scout := batchUser(t, d, "ann@example.com")
		reqs := []*writeReq{
			itemReq(NewItem{UserID: ann, ScoutID: scout, SourceType: "webhook", Verdict: "relevant"}),
			itemReq(NewItem{UserID: ann, ScoutID: "sc_nowhere", SourceType: "webhook", Verdict: "relevant"}),
			itemReq(NewItem{UserID: ann, ScoutID: scout, SourceType: "webhook", Verdict: "relevant"}),
		}
		d.commitBatch(reqs)
		var got []writeRes
		for _, r := range reqs {
			got = append(got, <-r.done)
		}
		if got[0].err != nil || got[2].err != nil || got[1].err == nil {
			t.Fatalf("answers: %+v, want only the second to fail", got)
		}
		if got[0].row.Seq != 1 || got[2].row.Seq != 2 {
			t.Fatalf("sequences %d, %d: want 1, 2 (the failed request takes none)", got[0].row.Seq, got[2].row.Seq)
		}
	})
}

// BenchmarkEnqueueConcurrent: items per second queued by 16 callers at
// once straight into the database (no HTTP, no sealing), with the mean
// batch size the committer formed.
//
//	go test -run '^$' -bench EnqueueConcurrent -benchtime 20000x ./relay/relaydb
func BenchmarkEnqueueConcurrent(b *testing.B) {
	for _, tc := range []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "relay.db") }},
		{"postgres", func(b *testing.B) string { return storetest.PostgresDSN(b) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			d, err := Open(ctx, tc.dsn(b))
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			u, _ := d.AddUser(ctx, "ann@example.com")
			d.ApplyOnce(ctx, u.ID, "op", func(tx *sql.Tx) ([]byte, error) {
				return []byte("{}"), d.UpsertScout(ctx, tx, relay.CloudScout{ID: "sc_b", UserID: u.ID, Kind: relay.KindWebhook, Name: "hook", Enabled: true, HookTokenHash: "h"})
			})
			sealed := map[string][]byte{"dv_1": make([]byte, 200)}
			var next atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						if _, _, err := d.Enqueue(ctx, NewItem{UserID: u.ID, ScoutID: "sc_b", SourceType: "webhook", Verdict: "relevant",
							Sealed: sealed, IdempotencyKeyHash: fmt.Sprint("k", i)}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "items/s")
			batches, reqs := d.BatchStats()
			b.ReportMetric(float64(reqs)/float64(batches), "items/batch")
		})
	}
}
