package relaylink_test

import (
	"context"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/relaylink"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/scouts"
)

// The cursor the desktop commits moves after the batch's cards are
// announced; the move is announced too (relay.state with last_seq), so
// that whoever waits for a drain's end hears it.
func TestCommittedCursorIsAnnounced(t *testing.T) {
	ctx := context.Background()
	r := newRelay(t)
	c, sub := openCore(t, "http://"+r.addr, r.token)
	created, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindWebhook, Name: "CI", Review: true, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, "scout registered", func(e scouts.Event) bool {
		_, err := r.db.Scout(ctx, created.Scout.ID)
		return relayState("online", 0)(e) && err == nil
	})
	var last int64
	for range 3 {
		row, _, err := r.db.Enqueue(ctx, relaydb.NewItem{UserID: r.user, ScoutID: created.Scout.ID, SourceType: relay.KindWebhook, Verdict: "relevant"})
		if err != nil {
			t.Fatal(err)
		}
		last = row.Seq
	}
	ev := waitFor(t, sub, "the cursor at the last row", func(e scouts.Event) bool {
		st, ok := e.Data.(relaylink.Status)
		return e.Type == relaylink.EventState && ok && st.LastSeq >= last
	})
	if got := c.Relay().Status(ctx).LastSeq; got < ev.Data.(relaylink.Status).LastSeq {
		t.Fatalf("announced last_seq %d ahead of the stored cursor %d", ev.Data.(relaylink.Status).LastSeq, got)
	}
}
