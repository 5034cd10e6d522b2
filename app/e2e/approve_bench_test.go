package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/store/storetest"
)

// BenchmarkApproveGmailCard approves Gmail cards through the local API of
// the real agent, in local mode against the fake Gmail, one request at a
// time, and reports the median and p95 of the answers beside a floor
// measured in the same run: one bare SQLite insert committed with the
// store's own options. Each approval also queues the archive and the
// note's text, which the outbox runs against the fake Gmail meanwhile, and
// looks up the sender's cards held as unanswered.
//
//	go test -run '^$' -bench ApproveGmailCard -benchtime 200x ./app/e2e
func BenchmarkApproveGmailCard(b *testing.B) {
	ctx := context.Background()
	w := startGmailWorld(b, "local", "")
	stream := w.a.events(b)
	n := max(b.N, 20)
	ids := make([]string, n)
	for i := range n {
		id, _, err := w.g.gmail.Deliver(gmailUser, personalMail(i+1, "bench"))
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = id
	}
	cards := waitGmailSuggestions(b, w.a, stream, w.scout, ids)
	floor := storetest.CommitFloor(b, n)
	times := make([]time.Duration, 0, n)
	b.ResetTimer()
	for i := range n {
		t0 := time.Now()
		if _, err := w.a.client.Approve(ctx, cards[i].ID, apitype.Approve{As: "note"}); err != nil {
			b.Fatal(fmt.Errorf("approve %s: %w", cards[i].ID, err))
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	storetest.ReportBesideFloor(b, times, floor)
}
