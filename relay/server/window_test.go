package server_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/store/storetest"
)

// eachDB runs a test on a relay over SQLite and over PostgreSQL.
func eachDB(t *testing.T, cfg server.Config, fn func(t *testing.T, e *env)) {
	t.Run("sqlite", func(t *testing.T) {
		fn(t, newEnvOn(t, filepath.Join(t.TempDir(), "relay.db"), func(*relaydb.DB, *env) server.Config { return cfg }))
	})
	t.Run("postgres", func(t *testing.T) {
		fn(t, newEnvOn(t, storetest.PostgresDSN(t), func(*relaydb.DB, *env) server.Config { return cfg }))
	})
}

// backlog connects a device, registers a webhook scout and queues n rows
// for it, and returns the connection.
func backlog(t *testing.T, e *env, n int) *raw {
	t.Helper()
	r := e.dial()
	r.hello(e.token, 0)
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_1", Kind: "webhook", Name: "hook", Enabled: true, HookTokenHash: strings.Repeat("a", 64)})
	if f, err := r.recv(); err != nil || f.Type != protocol.TypeConfigResult {
		t.Fatalf("register: %+v %v", f, err)
	}
	for range n {
		if _, _, err := e.db.Enqueue(context.Background(), relaydb.NewItem{UserID: e.user, ScoutID: "sc_1", SourceType: "webhook", Verdict: "relevant"}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// unacked reads proposals until it has n, without acknowledging them, and
// returns their sequences.
func (r *raw) unacked(n int) []int64 {
	r.t.Helper()
	var seqs []int64
	for len(seqs) < n {
		f, err := r.recv()
		if err != nil {
			r.t.Fatalf("after %d of %d proposals: %v", len(seqs), n, err)
		}
		if f.Type == protocol.TypeProposal {
			seqs = append(seqs, f.Seq)
		}
	}
	return seqs
}

// proposalsBeforePong pings twice and counts the proposals that come
// before the second pong: everything the relay's writer was asked to
// send before the first ping was handled (the frames of one connection
// are handled in order, and the writer sends what it was asked to before
// a later answer).
func (r *raw) proposalsBeforePong() int {
	r.t.Helper()
	n := 0
	for ping := range 2 {
		r.send(protocol.TypePing, "", protocol.Ping{T: int64(ping)})
		for {
			f, err := r.recv()
			if err != nil {
				r.t.Fatal(err)
			}
			if f.Type == protocol.TypePong {
				break
			}
			if f.Type == protocol.TypeProposal {
				n++
			}
		}
	}
	return n
}

// A device draining a backlog gets rows in runs of half the window, not
// each acknowledgement's worth as it comes: on PostgreSQL a drain split
// into runs of 3 to 7 rows, each costing a commit on the desktop and an
// acknowledgement on both sides (issue 17: 1.47 k items/s against 2.39 k).
func TestBackloggedDeviceGetsRowsInRunsOfHalfTheWindow(t *testing.T) {
	eachDB(t, server.Config{Window: 64}, func(t *testing.T, e *env) {
		r := backlog(t, e, 200)
		seqs := r.unacked(64)
		// A third of the window acknowledged: nothing yet.
		r.send(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: seqs[:20]})
		if n := r.proposalsBeforePong(); n != 0 {
			t.Fatalf("%d rows sent when 20 of a window of 64 were acknowledged; want none until half is free", n)
		}
		// Half: the next 32 come together.
		r.send(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: seqs[20:32]})
		if n := r.proposalsBeforePong(); n != 32 {
			t.Fatalf("%d rows sent once half the window was free, want 32", n)
		}
	})
}

// A device that keeps up gets a row as soon as it is queued, whatever is
// in flight, up to the window.
func TestDeviceKeepingUpGetsEachRowAsItComes(t *testing.T) {
	e := newEnv(t, server.Config{Window: 64})
	r := backlog(t, e, 40)
	r.unacked(40)
	if _, _, err := e.db.Enqueue(context.Background(), relaydb.NewItem{UserID: e.user, ScoutID: "sc_1", SourceType: "webhook", Verdict: "relevant"}); err != nil {
		t.Fatal(err)
	}
	if seqs := r.unacked(1); seqs[0] != 41 {
		t.Fatalf("got seq %d, want 41", seqs[0])
	}
}

// Rows are not marked delivered as they are sent: an acknowledgement
// marks its rows acknowledged and delivered, and the rows a session sent
// without an acknowledgement are marked delivered when it ends.
func TestRowsInFlightAreMarkedDeliveredWhenTheSessionEnds(t *testing.T) {
	eachDB(t, server.Config{Window: 64}, func(t *testing.T, e *env) {
		ctx := context.Background()
		r := backlog(t, e, 5)
		seqs := r.unacked(5)
		r.send(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: seqs[:2]})
		r.proposalsBeforePong() // the acknowledgement was handled
		depth, err := e.db.QueueDepth(ctx)
		if err != nil || depth[relay.StatusAcked] != 2 || depth[relay.StatusQueued] != 3 {
			t.Fatalf("while connected: %v %v, want 2 acked and 3 queued", depth, err)
		}
		// Shutdown returns once the session has finished; the device reads
		// meanwhile, so that it answers the close at once.
		go func() {
			for {
				if _, _, err := r.c.Read(ctx); err != nil {
					return
				}
			}
		}()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		e.srv.Shutdown(sctx)
		depth, err = e.db.QueueDepth(ctx)
		if err != nil || depth[relay.StatusAcked] != 2 || depth[relay.StatusDelivered] != 3 {
			t.Fatalf("after the session: %v %v, want 2 acked and 3 delivered", depth, err)
		}
		rows, err := e.db.Pending(ctx, e.user, e.dev, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			if row.DeliveredAt.IsZero() {
				t.Fatalf("row %d (%s) has no delivery time", row.Seq, row.Status)
			}
		}
	})
}
