package localdb_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// pageOf builds n item records shaped like a relay webhook page: a
// suggestion with its assessment, the learner's feature hashes and the
// two audit events (detected, suggested) of each item.
func pageOf(scoutID string, from, n int, now time.Time) []engine.ItemRecord {
	recs := make([]engine.ItemRecord, n)
	for i := range recs {
		ref := fmt.Sprintf("qi_%06d", from+i)
		trace := scouts.NewID("tr")
		sug := scouts.Suggestion{ID: scouts.NewID("sg"), ScoutID: scoutID, SourceType: scouts.KindWebhook, SourceRef: ref, TraceID: trace,
			Title: fmt.Sprintf("Build %d failed on main", from+i), Excerpt: "The integration suite failed at step deploy.",
			URL: "https://ci.example.com/builds/" + ref, ProposedKind: scouts.EntityTask, Reason: "Posted to the webhook of scout CI",
			Status: scouts.StatusPending, CreatedAt: now, ExpiresAt: now.Add(30 * 24 * time.Hour), Lane: scouts.LaneInbox}
		refs := map[string]string{"scout_id": scoutID, "suggestion_id": sug.ID, "source_ref": ref}
		feats := make([]uint64, 40)
		for j := range feats {
			feats[j] = uint64(from+i)*1000 + uint64(j)
		}
		recs[i] = engine.ItemRecord{Suggestion: sug, Features: feats, Audit: []scouts.AuditEvent{
			{TraceID: trace, Stage: scouts.StageSource, Type: scouts.AuditItemDetected, Outcome: scouts.OutcomeOK, Summary: "New item from CI", Refs: refs, At: now},
			{TraceID: trace, Stage: scouts.StageTriage, Type: scouts.AuditSuggestionCreated, Outcome: scouts.OutcomeOK, Summary: "Suggested as task: Posted to the webhook of scout CI", Refs: refs, At: now},
		}}
	}
	return recs
}

// BenchmarkRecordItems: 5 000 relay items recorded in pages of 256 (one
// transaction each), as a drain commits them; items/s, median of b.N.
func BenchmarkRecordItems(b *testing.B) {
	const items, page = 5000, 256
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	var rates []float64
	for range b.N {
		db, err := localdb.Open(ctx, filepath.Join(b.TempDir(), "scouts.db"))
		if err != nil {
			b.Fatal(err)
		}
		sc := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindWebhook, Name: "CI", Enabled: true, Review: true, CreatedAt: now, UpdatedAt: now}
		if err := db.CreateScout(ctx, sc); err != nil {
			b.Fatal(err)
		}
		// As the agent does for every scout it creates: suggestions then
		// record the version that produced them.
		if _, _, err := db.AddScoutVersion(ctx, localdb.ScoutVersion{ScoutID: sc.ID, Document: []byte(`{"name":"CI"}`), CreatedAt: now, Actor: "bench"}); err != nil {
			b.Fatal(err)
		}
		var pages [][]engine.ItemRecord
		for i := 0; i < items; i += page {
			pages = append(pages, pageOf(sc.ID, i, min(page, items-i), now))
		}
		start := time.Now()
		for _, p := range pages {
			got, err := db.RecordItems(ctx, p, nil)
			if err != nil || len(got) != len(p) {
				b.Fatalf("recorded %d of %d: %v", len(got), len(p), err)
			}
		}
		rates = append(rates, items/time.Since(start).Seconds())
		db.Close()
	}
	slices.Sort(rates)
	b.ReportMetric(rates[len(rates)/2], "items/s")
}
