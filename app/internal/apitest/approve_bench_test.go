package apitest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/internal/apitest"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store/storetest"
)

// BenchmarkApproveFolderCard approves folder cards through the local API
// (HTTP on the agent's socket, a real core and its SQLite store), one
// request at a time, and reports the median and p95 of the answers beside
// a floor measured in the same run: one bare SQLite insert committed with
// the store's own options. The machine is shared, so the ratio to the
// floor says more than the times.
func BenchmarkApproveFolderCard(b *testing.B) {
	ctx := context.Background()
	a := apitest.Start(b)
	dir := b.TempDir()
	n := max(b.N, 20)
	for i := range n {
		body := fmt.Sprintf("# Card %d\n\nNotes of meeting %d: decided to ship on Monday.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("card-%04d.md", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Every card is announced on the bus as it is recorded: the set-up
	// waits for the n announcements, then reads the cards once.
	sub, _, _ := a.Core.Bus.Subscribe(0, 4*n+64)
	defer sub.Close()
	review := true
	if _, err := a.Client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "bench", Path: dir, Review: &review}); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(2 * time.Minute)
	for created := 0; created < n; {
		select {
		case m, ok := <-sub.C:
			if !ok {
				b.Fatal("the event stream closed before the cards were made")
			}
			if m.Event.Type == scouts.EventSuggestionCreated {
				created++
			}
		case <-deadline:
			b.Fatalf("%d of %d cards within 2 minutes", created, n)
		}
	}
	cards, err := a.Client.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending", Limit: n})
	if err != nil {
		b.Fatal(err)
	}
	if len(cards) < n {
		b.Fatalf("%d of %d cards pending", len(cards), n)
	}
	floor := storetest.CommitFloor(b, n)
	times := make([]time.Duration, 0, n)
	b.ResetTimer()
	for i := range n {
		t0 := time.Now()
		if _, err := a.Client.Approve(ctx, cards[i].ID, apitype.Approve{As: "note"}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	storetest.ReportBesideFloor(b, times, floor)
}
