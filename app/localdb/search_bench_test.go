package localdb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// searchCorpus makes a vocabulary of pseudo-words; text drawn from it
// follows Zipf's law, as words of mail do: a few words are in most rows.
type searchCorpus struct {
	words  []string
	people []string
	zipf   *rand.Zipf
	rng    *rand.Rand
}

func newSearchCorpus(seed uint64) *searchCorpus {
	rng := rand.New(rand.NewPCG(seed, seed))
	syll := []string{"ka", "lo", "mi", "ter", "san", "vo", "ri", "del", "na", "pu", "gre", "tos", "ba", "len", "qui", "ro", "fa", "shi", "mon", "ev"}
	seen := map[string]bool{}
	c := &searchCorpus{rng: rng}
	for len(c.words) < 8000 {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			c.words = append(c.words, w)
		}
	}
	for i := range 400 {
		c.people = append(c.people, fmt.Sprintf("%s %s <%s%d@%s.example>", capital(c.words[1000+i]), capital(c.words[2000+i]), c.words[1000+i], i, c.words[3000+i%50]))
	}
	c.zipf = rand.NewZipf(rng, 1.1, 2, uint64(len(c.words)-1))
	return c
}

func (c *searchCorpus) text(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.words[c.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// fillSearch records n rows: cards of two scouts in every lane and status
// as a page of items is recorded, one in five with a task, note or event
// made from it (as approving does), in pages of 500.
func fillSearch(b *testing.B, db *localdb.DB, c *searchCorpus, n int) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	var scoutIDs []string
	for _, name := range []string{"Work", "Home"} {
		sc := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindGmail, Name: name, Enabled: true, Review: true, CreatedAt: now, UpdatedAt: now}
		if err := db.CreateScout(ctx, sc); err != nil {
			b.Fatal(err)
		}
		scoutIDs = append(scoutIDs, sc.ID)
	}
	lanes := []scouts.Lane{scouts.LaneInbox, scouts.LaneInbox, scouts.LaneScreened, scouts.LaneSpam}
	statuses := []scouts.Status{scouts.StatusPending, scouts.StatusApproved, scouts.StatusRejected, scouts.StatusExpired}
	kinds := []scouts.EntityKind{scouts.EntityTask, scouts.EntityNote, scouts.EntityEvent}
	made := 0
	for i := 0; made < n; i++ {
		var page []engine.ItemRecord
		for j := 0; j < 500 && made < n; j++ {
			at := now.Add(-time.Duration(i*500+j) * time.Minute)
			s := scouts.Suggestion{ID: scouts.NewID("sg"), ScoutID: scoutIDs[c.rng.IntN(2)], SourceType: scouts.KindGmail,
				SourceRef: fmt.Sprintf("m%07d", i*500+j), TraceID: scouts.NewID("tr"), Title: c.text(4 + c.rng.IntN(6)),
				Excerpt: c.text(20 + c.rng.IntN(20)), Sender: c.people[c.rng.IntN(len(c.people))], ProposedKind: scouts.EntityTask,
				Status: statuses[c.rng.IntN(len(statuses))], Lane: lanes[c.rng.IntN(len(lanes))], CreatedAt: at, ExpiresAt: at.Add(30 * 24 * time.Hour)}
			rec := engine.ItemRecord{Suggestion: s}
			made++
			if made < n && c.rng.IntN(5) == 0 {
				k := kinds[c.rng.IntN(len(kinds))]
				rec.Entity = &scouts.Entity{ID: scouts.NewID("en"), Kind: k, Title: s.Title, Body: c.text(40 + c.rng.IntN(60)),
					SourceSuggestionID: s.ID, CreatedAt: at, UpdatedAt: at}
				if k == scouts.EntityEvent {
					rec.Entity.StartsAt = at.Add(48 * time.Hour)
				}
				made++
			}
			page = append(page, rec)
		}
		if _, err := db.RecordItems(ctx, page, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// searchQueries are what people type: a word (common or rare), a word's
// first letters, two words, a word with a filter, a sender, a phrase.
func searchQueries(c *searchCorpus, n int) []string {
	out := make([]string, 0, n)
	word := func() string {
		if c.rng.IntN(2) == 0 {
			return c.words[c.rng.IntN(100)] // among the commonest
		}
		return c.words[100+c.rng.IntN(len(c.words)-100)]
	}
	for i := range n {
		switch i % 6 {
		case 0:
			out = append(out, word())
		case 1:
			w := word()
			out = append(out, w[:min(len(w), 3+c.rng.IntN(2))])
		case 2:
			out = append(out, word()+" "+word())
		case 3:
			out = append(out, word()+" "+[]string{"lane:inbox", "is:pending", "kind:task", "scout:work", "after:2026-01-01"}[c.rng.IntN(5)])
		case 4:
			out = append(out, "from:"+strings.Fields(c.people[c.rng.IntN(len(c.people))])[0])
		case 5:
			out = append(out, `"`+c.words[c.rng.IntN(50)]+" "+c.words[c.rng.IntN(50)]+`"`)
		}
	}
	return out
}

// BenchmarkSearch: 100,000 cards and entities; each query of a mix of
// 600 answered through DB.Search (parse, match, filters on each match's
// row, rank the newest 2,000, snippets, 50 hits) and, in the same run, as
// a bare FTS5 query of the same words: rowids of the 50 best by rank of
// the newest 2,000 matches (bare), and of all matches (bare-all). Reports
// medians and p95 and the ratios of search to bare (docs/benchmarks.md,
// "Search").
func BenchmarkSearch(b *testing.B) {
	const rows, queries = 100_000, 600
	ctx := context.Background()
	db, err := localdb.Open(ctx, filepath.Join(b.TempDir(), "scouts.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := newSearchCorpus(22)
	start := time.Now()
	fillSearch(b, db, c, rows)
	b.Logf("filled %d rows in %v", rows, time.Since(start).Round(time.Millisecond))
	qs := searchQueries(c, queries)
	var full, bare, all []time.Duration
	hits := 0
	b.ResetTimer()
	for range b.N {
		full, bare, all = full[:0], bare[:0], all[:0]
		for _, q := range qs {
			t0 := time.Now()
			sq, err := localdb.ParseSearch(q, time.UTC)
			if err != nil {
				b.Fatalf("%q: %v", q, err)
			}
			res, err := db.Search(ctx, sq, 50)
			if err != nil {
				b.Fatalf("%q: %v", q, err)
			}
			full = append(full, time.Since(t0))
			hits += len(res)
			t1 := time.Now()
			if _, err := db.BareSearch(ctx, sq.Match, 50, false); err != nil {
				b.Fatalf("bare %q: %v", q, err)
			}
			bare = append(bare, time.Since(t1))
			t2 := time.Now()
			if _, err := db.BareSearch(ctx, sq.Match, 50, true); err != nil {
				b.Fatalf("bare %q: %v", q, err)
			}
			all = append(all, time.Since(t2))
		}
	}
	b.StopTimer()
	// The slowest queries, to see what the p95 is made of.
	order := make([]int, len(full))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, c int) int { return int(full[c] - full[a]) })
	for _, i := range order[:8] {
		b.Logf("slow: %-40q search %v, bare %v, bare-all %v", qs[i], full[i].Round(time.Millisecond/10), bare[i].Round(time.Millisecond/10), all[i].Round(time.Millisecond/10))
	}
	pct := func(ds []time.Duration, p float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds()) / 1000
	}
	fm, fp, bm, bp := pct(full, 0.5), pct(full, 0.95), pct(bare, 0.5), pct(bare, 0.95)
	b.ReportMetric(fm, "search-p50-ms")
	b.ReportMetric(fp, "search-p95-ms")
	b.ReportMetric(bm, "bare-p50-ms")
	b.ReportMetric(bp, "bare-p95-ms")
	b.ReportMetric(pct(all, 0.5), "bare-all-p50-ms")
	b.ReportMetric(pct(all, 0.95), "bare-all-p95-ms")
	b.ReportMetric(fm/bm, "ratio-p50")
	b.ReportMetric(fp/bp, "ratio-p95")
	b.ReportMetric(float64(hits)/float64(b.N*len(qs)), "hits/query")
}

func capital(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// BenchmarkRecordItemsSearchIndex: what the search index costs recording
// items: BenchmarkRecordItems' 5,000 relay items in pages of 256, on a
// database with the index's triggers and on one without, alternated;
// items/s, medians of b.N each.
func BenchmarkRecordItemsSearchIndex(b *testing.B) {
	const items, page = 5000, 256
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	rates := map[bool][]float64{}
	for range b.N {
		for _, indexed := range []bool{true, false} {
			db, err := localdb.Open(ctx, filepath.Join(b.TempDir(), "scouts.db"))
			if err != nil {
				b.Fatal(err)
			}
			if !indexed {
				if err := db.DropSearchIndex(ctx); err != nil {
					b.Fatal(err)
				}
			}
			sc := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindWebhook, Name: "CI", Enabled: true, Review: true, CreatedAt: now, UpdatedAt: now}
			if err := db.CreateScout(ctx, sc); err != nil {
				b.Fatal(err)
			}
			var pages [][]engine.ItemRecord
			for i := 0; i < items; i += page {
				pages = append(pages, pageOf(sc.ID, i, min(page, items-i), now))
			}
			start := time.Now()
			for _, p := range pages {
				if _, err := db.RecordItems(ctx, p, nil); err != nil {
					b.Fatal(err)
				}
			}
			rates[indexed] = append(rates[indexed], items/time.Since(start).Seconds())
			db.Close()
		}
	}
	med := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
	with, without := med(rates[true]), med(rates[false])
	b.ReportMetric(with, "indexed-items/s")
	b.ReportMetric(without, "unindexed-items/s")
	b.ReportMetric(with/without, "ratio")
}
