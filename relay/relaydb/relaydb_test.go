package relaydb_test

import (
	"cmp"
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store/storetest"
)

// each runs a test against SQLite and PostgreSQL: one suite, both backends.
func each(t *testing.T, fn func(t *testing.T, db *relaydb.DB)) {
	eachWithPostgresOptions(t, "", fn)
}

// eachWithPostgresOptions is each with PostgreSQL connections started
// with the given server options (planner settings, say).
func eachWithPostgresOptions(t *testing.T, options string, fn func(t *testing.T, db *relaydb.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := relaydb.Open(context.Background(), filepath.Join(t.TempDir(), "relay.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, db)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := storetest.PostgresDSN(t)
		if options != "" {
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("options", options)
			// pgx reads a "+" in the query literally: spaces must be %20.
			u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
			dsn = u.String()
		}
		db, err := relaydb.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, db)
	})
}

type fixture struct {
	user   relay.User
	device relay.Device
	token  string
	scout  string
}

func setup(t *testing.T, db *relaydb.DB, email string) fixture {
	t.Helper()
	ctx := context.Background()
	u, err := db.AddUser(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	dv, tok, err := db.AddDevice(ctx, email, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeviceConnected(ctx, dv.ID, make([]byte, 32), ""); err != nil {
		t.Fatal(err)
	}
	scout := scouts.NewID("sc")
	_, _, err = db.ApplyOnce(ctx, u.ID, scouts.NewID("op"), func(tx *sql.Tx) ([]byte, error) {
		return []byte(`{}`), db.UpsertScout(ctx, tx, relay.CloudScout{ID: scout, UserID: u.ID, Kind: relay.KindWebhook, Name: "hook", Enabled: true, HookTokenHash: "h"})
	})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{user: u, device: dv, token: tok, scout: scout}
}

func TestAccountsAndTokens(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		f := setup(t, db, "ann@example.com")
		if _, err := db.AddUser(ctx, "ANN@example.com"); scouts.ErrorCode(err) != scouts.EConflict {
			t.Fatalf("duplicate user: %v", err)
		}
		if _, err := db.AddUser(ctx, "not an email"); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Fatalf("bad email: %v", err)
		}
		dv, err := db.DeviceByToken(ctx, f.token)
		if err != nil || dv.ID != f.device.ID || dv.UserEmail != "ann@example.com" {
			t.Fatalf("by token: %+v %v", dv, err)
		}
		if _, err := db.DeviceByToken(ctx, f.token+"x"); scouts.ErrorCode(err) != scouts.ENotFound {
			t.Fatalf("wrong token: %v", err)
		}
		if err := db.DeviceConnected(ctx, dv.ID, []byte("another key, another client......"), ""); scouts.ErrorCode(err) != scouts.EConflict {
			t.Fatalf("key change accepted: %v", err)
		}
		before := time.Now().Add(-time.Second)
		if err := db.RevokeDevice(ctx, dv.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.RevokeDevice(ctx, dv.ID); scouts.ErrorCode(err) != scouts.EConflict {
			t.Fatalf("revoke twice: %v", err)
		}
		ids, err := db.RevokedSince(ctx, before)
		if err != nil || len(ids) != 1 || ids[0] != dv.ID {
			t.Fatalf("revoked since: %v %v", ids, err)
		}
		dv, _ = db.DeviceByToken(ctx, f.token)
		if !dv.Revoked() {
			t.Fatal("revoked device not marked revoked")
		}
	})
}

func TestQueueDeliveryAckAndIsolation(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		ann := setup(t, db, "ann@example.com")
		bob := setup(t, db, "bob@example.com")
		var annRows []relay.QueueItem
		for i := range 5 {
			r, dup, err := db.Enqueue(ctx, relaydb.NewItem{UserID: ann.user.ID, ScoutID: ann.scout, SourceType: "webhook", Verdict: "relevant",
				Sealed: map[string][]byte{ann.device.ID: []byte{byte(i)}}})
			if err != nil || dup {
				t.Fatal(err, dup)
			}
			annRows = append(annRows, r)
		}
		if _, _, err := db.Enqueue(ctx, relaydb.NewItem{UserID: bob.user.ID, ScoutID: bob.scout, SourceType: "webhook", Verdict: "relevant"}); err != nil {
			t.Fatal(err)
		}
		// Sequences are per user and dense.
		for i, r := range annRows {
			if r.Seq != int64(i+1) {
				t.Fatalf("row %d has seq %d", i, r.Seq)
			}
		}
		p, err := db.Pending(ctx, ann.user.ID, ann.device.ID, 2, 10)
		if err != nil || len(p) != 3 || p[0].Seq != 3 || p[0].Sealed[0] != 2 {
			t.Fatalf("pending after 2: %+v %v", p, err)
		}
		// Bob's device acknowledging Ann's sequences changes nothing.
		if err := db.Ack(ctx, bob.user.ID, bob.device.ID, []int64{1, 2, 3, 4, 5}); err != nil {
			t.Fatal(err)
		}
		depth, _ := db.QueueDepth(ctx)
		if depth[relay.StatusAcked] != 1 || depth[relay.StatusQueued] != 5 {
			t.Fatalf("after bob's acks: %v (bob's own row may be acked, ann's must not)", depth)
		}
		if err := db.MarkDelivered(ctx, ann.user.ID, []int64{annRows[0].Seq, annRows[1].Seq}); err != nil {
			t.Fatal(err)
		}
		if err := db.Ack(ctx, ann.user.ID, ann.device.ID, []int64{1, 2}); err != nil {
			t.Fatal(err)
		}
		depth, _ = db.QueueDepth(ctx)
		if depth[relay.StatusAcked] != 3 || depth[relay.StatusQueued] != 3 {
			t.Fatalf("after ann's acks: %v", depth)
		}
		dv, _ := db.Device(ctx, ann.device.ID)
		if dv.AckedSeq != 2 {
			t.Fatalf("device cursor %d, want 2", dv.AckedSeq)
		}
		// Bob never sees Ann's rows.
		p, _ = db.Pending(ctx, bob.user.ID, bob.device.ID, 0, 100)
		if len(p) != 1 || p[0].UserID != bob.user.ID {
			t.Fatalf("bob's pending: %+v", p)
		}
	})
}

func TestEnqueueIsIdempotent(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		f := setup(t, db, "ann@example.com")
		item := relaydb.NewItem{UserID: f.user.ID, ScoutID: f.scout, SourceType: "webhook", Verdict: "relevant", IdempotencyKeyHash: "k1"}
		// Concurrent duplicates: exactly one row.
		var wg sync.WaitGroup
		ids := make(chan string, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, _, err := db.Enqueue(ctx, item)
				if err != nil {
					t.Error(err)
					return
				}
				ids <- r.ID
			}()
		}
		wg.Wait()
		close(ids)
		first := ""
		for id := range ids {
			if first == "" {
				first = id
			} else if id != first {
				t.Fatalf("duplicates got different rows: %s vs %s", id, first)
			}
		}
		// A gmail-style ref is unique per scout too.
		g := relaydb.NewItem{UserID: f.user.ID, ScoutID: f.scout, SourceType: "gmail", SourceRef: "msg-1", Verdict: "relevant"}
		r1, dup1, _ := db.Enqueue(ctx, g)
		r2, dup2, _ := db.Enqueue(ctx, g)
		if dup1 || !dup2 || r1.ID != r2.ID {
			t.Fatalf("same ref twice: %v %v %s %s", dup1, dup2, r1.ID, r2.ID)
		}
		// After a day the key is forgotten.
		db.SetClock(func() time.Time { return time.Now().Add(relaydb.IdempotencyTTL + time.Minute) })
		r3, dup3, _ := db.Enqueue(ctx, item)
		if dup3 || r3.ID == first {
			t.Fatalf("key reused after its TTL was a duplicate: %v", dup3)
		}
	})
}

func TestConfigOpsApplyOnce(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		f := setup(t, db, "ann@example.com")
		calls := 0
		apply := func(tx *sql.Tx) ([]byte, error) {
			calls++
			return []byte(`{"ok":true}`), db.DisableScout(ctx, tx, f.user.ID, f.scout)
		}
		res1, replay1, err1 := db.ApplyOnce(ctx, f.user.ID, "op-x", apply)
		res2, replay2, err2 := db.ApplyOnce(ctx, f.user.ID, "op-x", apply)
		if err1 != nil || err2 != nil || replay1 || !replay2 || string(res1) != string(res2) || calls != 1 {
			t.Fatalf("apply once: %v %v %v %v calls=%d", err1, err2, replay1, replay2, calls)
		}
		s, _ := db.Scout(ctx, f.scout)
		if s.Enabled {
			t.Fatal("scout still enabled")
		}
		// Another user cannot take over the scout id.
		bob := setup(t, db, "bob@example.com")
		_, _, err := db.ApplyOnce(ctx, bob.user.ID, "op-y", func(tx *sql.Tx) ([]byte, error) {
			return nil, db.UpsertScout(ctx, tx, relay.CloudScout{ID: f.scout, UserID: bob.user.ID, Kind: relay.KindWebhook, Name: "mine now"})
		})
		if scouts.ErrorCode(err) != scouts.EConflict {
			t.Fatalf("takeover: %v", err)
		}
		// A failed operation is not recorded: it can be retried.
		if _, replay, _ := db.ApplyOnce(ctx, bob.user.ID, "op-y", func(*sql.Tx) ([]byte, error) { return []byte(`{}`), nil }); replay {
			t.Fatal("a failed operation was recorded as applied")
		}
	})
}

func TestExpiryAndPurge(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		f := setup(t, db, "ann@example.com")
		var woken []string
		db.OnQueued(func(u string) { woken = append(woken, u) })
		db.Enqueue(ctx, relaydb.NewItem{UserID: f.user.ID, ScoutID: f.scout, SourceType: "webhook", Verdict: "relevant", Sealed: map[string][]byte{f.device.ID: {1}}})
		db.SetClock(func() time.Time { return time.Now().Add(relay.QueueTTL + time.Hour) })
		users, err := db.ExpireDue(ctx)
		if err != nil || len(users) != 1 || users[0] != f.user.ID {
			t.Fatalf("expire: %v %v", users, err)
		}
		p, _ := db.Pending(ctx, f.user.ID, f.device.ID, 0, 10)
		if len(p) != 1 || p[0].Status != relay.StatusExpired || p[0].Sealed != nil {
			t.Fatalf("expired row: %+v (content must be gone)", p)
		}
		if db.Dialect() == "sqlite" && len(woken) != 2 {
			t.Fatalf("in-process wake-ups %v, want one for the enqueue and one for the expiry", woken)
		}
		if err := db.Purge(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		if p, _ := db.Pending(ctx, f.user.ID, f.device.ID, 0, 10); len(p) != 0 {
			t.Fatalf("purge kept %d rows", len(p))
		}
	})
}

// A session that ends marks the rows it sent delivered while its reader
// may still be acknowledging them (and a delivery loop did so for every
// window before issue 17): on PostgreSQL both lock the same rows, and if
// they took the locks in different orders the server would kill one of
// them as a deadlock (the session then ended with 1011 and rows stayed
// queued).
func TestConcurrentDeliveryAndAckDoNotDeadlock(t *testing.T) {
	// On a large production table PostgreSQL walks indexes: the status
	// index (physical order) for the delivery mark, the (user, seq) index
	// for the ack. Planner settings give this small table the same plans.
	eachWithPostgresOptions(t, "-c enable_seqscan=off -c enable_bitmapscan=off", func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		f := setup(t, db, "ann@example.com")
		const rows, window = 1280, 64
		_, seqs := enqueueConcurrently(t, db, f, rows)
		// Window by window: the rows are marked delivered while the
		// reader acknowledges the same rows, newest first, in batches.
		for w := 0; w < rows; w += window {
			start := make(chan struct{})
			errs := make(chan error, 3)
			go func() { <-start; errs <- db.MarkDelivered(ctx, f.user.ID, seqs[w:w+window]) }()
			for half := range 2 {
				var ack []int64
				for i := w + (2-half)*window/2 - 1; i >= w+(1-half)*window/2; i-- {
					ack = append(ack, seqs[i])
				}
				go func() { <-start; errs <- db.Ack(ctx, f.user.ID, f.device.ID, ack) }()
			}
			close(start)
			for range 3 {
				if err := <-errs; err != nil {
					t.Fatalf("window at %d: %v", w, err)
				}
			}
		}
		depth, err := db.QueueDepth(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if depth[relay.StatusAcked] != rows {
			t.Fatalf("acked %d rows, want %d (%v)", depth[relay.StatusAcked], rows, depth)
		}
	})
}

// enqueueConcurrently queues n rows from several goroutines, as concurrent
// webhook posters do (on PostgreSQL each connection fills its own page, so
// the rows' physical order is not their sequence order), and returns them
// in sequence order.
func enqueueConcurrently(t *testing.T, db *relaydb.DB, f fixture, n int) ([]string, []int64) {
	t.Helper()
	rows := make(chan relay.QueueItem, n)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				r, _, err := db.Enqueue(context.Background(), relaydb.NewItem{UserID: f.user.ID, ScoutID: f.scout, SourceType: "webhook", Verdict: "relevant"})
				if err != nil {
					t.Error(err)
					return
				}
				rows <- r
			}
		}()
	}
	wg.Wait()
	close(rows)
	var all []relay.QueueItem
	for r := range rows {
		all = append(all, r)
	}
	if t.Failed() {
		t.FailNow()
	}
	slices.SortFunc(all, func(a, b relay.QueueItem) int { return cmp.Compare(a.Seq, b.Seq) })
	ids, seqs := make([]string, len(all)), make([]int64, len(all))
	for i, r := range all {
		ids[i], seqs[i] = r.ID, r.Seq
	}
	return ids, seqs
}

// A desktop that committed rows but crashed before its acks reached the
// relay says so in its next hello (last_acked_seq): the relay takes that as
// the acks it lost. Only the device's own user's rows, and only rows that
// exist: a claim beyond the user's last sequence acknowledges nothing that
// comes later.
func TestAckThroughTakesLostAcks(t *testing.T) {
	each(t, func(t *testing.T, db *relaydb.DB) {
		ctx := context.Background()
		ann := setup(t, db, "ann@example.com")
		bob := setup(t, db, "bob@example.com")
		queue := func(f fixture, n int) []relay.QueueItem {
			var rows []relay.QueueItem
			for range n {
				r, _, err := db.Enqueue(ctx, relaydb.NewItem{UserID: f.user.ID, ScoutID: f.scout, SourceType: "webhook", Verdict: "relevant",
					Sealed: map[string][]byte{f.device.ID: {1}}})
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, r)
			}
			return rows
		}
		annRows := queue(ann, 5)
		queue(bob, 3)
		if err := db.MarkDelivered(ctx, ann.user.ID, []int64{annRows[0].Seq, annRows[1].Seq, annRows[2].Seq}); err != nil {
			t.Fatal(err)
		}
		// Ann's desktop committed 1..4 (delivered or not, as far as the
		// relay knows) and claims far more than exists.
		n, err := db.AckThrough(ctx, ann.user.ID, ann.device.ID, 4)
		if err != nil || n != 4 {
			t.Fatalf("ack through 4: %d rows, %v", n, err)
		}
		depth, _ := db.QueueDepth(ctx)
		if depth[relay.StatusAcked] != 4 || depth[relay.StatusQueued] != 4 || depth[relay.StatusDelivered] != 0 {
			t.Fatalf("after ann's hello: %v (ann's 1..4 acked; her 5th and bob's 3 queued)", depth)
		}
		p, _ := db.Pending(ctx, ann.user.ID, ann.device.ID, 0, 10)
		for _, r := range p {
			if gone := r.Sealed == nil; gone != (r.Seq <= 4) {
				t.Fatalf("row %d: sealed content gone=%v", r.Seq, gone)
			}
		}
		if dv, _ := db.Device(ctx, ann.device.ID); dv.AckedSeq != 4 {
			t.Fatalf("device cursor %d, want 4", dv.AckedSeq)
		}
		// A hostile claim: everything that exists is acknowledged, and
		// nothing beyond it.
		if n, err := db.AckThrough(ctx, ann.user.ID, ann.device.ID, 1_000_000); err != nil || n != 1 {
			t.Fatalf("ack through a million: %d rows, %v", n, err)
		}
		if dv, _ := db.Device(ctx, ann.device.ID); dv.AckedSeq != 5 {
			t.Fatalf("device cursor %d after a claim beyond the last row, want 5", dv.AckedSeq)
		}
		later := queue(ann, 1)[0]
		if later.Status != relay.StatusQueued {
			t.Fatalf("a row queued after the claim is %s", later.Status)
		}
		if p, _ := db.Pending(ctx, ann.user.ID, ann.device.ID, 5, 10); len(p) != 1 || p[0].Status != relay.StatusQueued || p[0].Sealed == nil {
			t.Fatalf("the later row: %+v (want queued, with its content)", p)
		}
		// Bob's rows are untouched by Ann's claims; a claim never moves a
		// cursor back.
		depth, _ = db.QueueDepth(ctx)
		if depth[relay.StatusQueued] != 4 {
			t.Fatalf("queued rows %d, want bob's 3 and ann's new one", depth[relay.StatusQueued])
		}
		if n, err := db.AckThrough(ctx, ann.user.ID, ann.device.ID, 2); err != nil || n != 0 {
			t.Fatalf("ack through 2 again: %d, %v", n, err)
		}
		if dv, _ := db.Device(ctx, ann.device.ID); dv.AckedSeq != 5 {
			t.Fatalf("device cursor moved back to %d", dv.AckedSeq)
		}
	})
}
