package triage_test

import (
	"context"
	"testing"

	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// Benchmarks run over every development message in turn; each operation
// is one message. Run them on one core:
//
//	go test -run '^$' -bench . -cpu 1 ./scouts/triage/...

func devRaw(b *testing.B) [][]byte {
	b.Helper()
	c := corpustest.ForTest(b)
	var raws [][]byte
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range items {
			raws = append(raws, it.Raw)
		}
	}
	return raws
}

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkFloorParseOnly is the floor: reading the headers of raw mail
// into a Message, nothing else.
func BenchmarkFloorParseOnly(b *testing.B) {
	raws := devRaw(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := mailtext.Parse(raws[i%len(raws)], mailtext.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}

// BenchmarkTriageNoModel is the pipeline alone (rules, heuristics,
// default) on messages parsed beforehand.
func BenchmarkTriageNoModel(b *testing.B) {
	raws := devRaw(b)
	msgs := make([]triage.Message, len(raws))
	for i, raw := range raws {
		m, err := mailtext.Parse(raw, mailtext.Options{})
		if err != nil {
			b.Fatal(err)
		}
		msgs[i] = m
	}
	p, err := triage.New(triage.Config{Scout: "bench", Rules: []triage.Rule{
		{ID: "vip", Action: triage.Allow, Senders: []string{"boss@corp.example"}},
		{ID: "news", Action: triage.Ignore, Domains: []string{"news.example.com"}, SubjectWords: []string{"digest"}},
		{ID: "lists", Action: triage.Allow, ListIDs: []string{"dev.lists.example.org"}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Triage(ctx, msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}

// BenchmarkParseAndTriageNoModel is what the relay spends per message
// without a model: headers and body text (2,000 characters) from raw mail,
// then the pipeline.
func BenchmarkParseAndTriageNoModel(b *testing.B) {
	raws := devRaw(b)
	p, err := triage.New(triage.Config{Scout: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := mailtext.Parse(raws[i%len(raws)], mailtext.Options{BodyRunes: triage.ModelBodyRunes})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Triage(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}
