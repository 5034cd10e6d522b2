package learn_test

import (
	"context"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts/learn"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// The learner's throughput on what the product reads of a mail (headers
// and 4,000 characters of text, parsed beforehand), each operation one
// message, over the development groups in turn. Run on one core, so that
// msgs/s is messages per CPU second (the goal: learner + heuristics
// ≥ 5,000):
//
//	go test -run '^$' -bench . -cpu 1 ./scouts/learn/

type benchMail struct {
	m    triage.Message
	spam bool
}

// trained returns the development mail and a model (counts in memory and
// the content model) taught every other message, as a scout that learned
// from 1,600 decisions.
func trained(b *testing.B) ([]benchMail, *learn.Model, learn.MemTable) {
	b.Helper()
	c := corpustest.ForTest(b)
	var ms []benchMail
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range items {
			m, err := mailtext.Parse(it.Raw, mailtext.Options{BodyRunes: 4000})
			if err != nil {
				continue
			}
			corpus.Neutralize(&m)
			ms = append(ms, benchMail{m: m, spam: g.Spam()})
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	model := &learn.Model{Epoch: now, Content: learn.NewContent(0)}
	tbl := learn.MemTable{}
	for i, bm := range ms {
		if i%2 == 1 {
			continue
		}
		fs := learn.Extract(item(bm.m), 1)
		l := learn.Label{Spam: bm.spam, Ham: !bm.spam, Reject: !bm.spam}
		h := learn.Hashes(fs)
		tbl.Apply(h, l.Vec(), 1)
		model.Totals = model.Totals.Add(l.Vec(), len(h), 1)
		model.Content.Learn(learn.ContentExample{IDs: learn.HashIDs(h), Spam: bm.spam, Weight: 1})
	}
	return ms, model, tbl
}

func item(m triage.Message) learn.Item {
	it := triage.LearnItem(m)
	it.Source = "gmail"
	return it
}

// BenchmarkLearnerAndHeuristics is what an arriving mail costs the
// learner and the heuristics together: the heuristics' verdict, the
// features, and the prediction with the counts and the content model.
func BenchmarkLearnerAndHeuristics(b *testing.B) {
	ms, model, tbl := trained(b)
	p, err := triage.New(triage.Config{Scout: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	now := model.Epoch
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := ms[i%len(ms)].m
		if _, err := p.Triage(ctx, m); err != nil {
			b.Fatal(err)
		}
		if _, err := model.Predict(tbl, learn.Extract(item(m), 1), now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkFloorLearnerCountsOnly is the same without the content model:
// the learner before issue 19, the floor the content model adds to.
func BenchmarkFloorLearnerCountsOnly(b *testing.B) {
	ms, model, tbl := trained(b)
	model.Content = nil
	p, err := triage.New(triage.Config{Scout: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	now := model.Epoch
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := ms[i%len(ms)].m
		if _, err := p.Triage(ctx, m); err != nil {
			b.Fatal(err)
		}
		if _, err := model.Predict(tbl, learn.Extract(item(m), 1), now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkContentLearn is one step of the content model; a retrain after
// an undo costs this per stored example.
func BenchmarkContentLearn(b *testing.B) {
	ms, _, _ := trained(b)
	ids := make([][]uint32, len(ms))
	for i, bm := range ms {
		ids[i] = learn.HashIDs(learn.Hashes(learn.Extract(item(bm.m), 1)))
	}
	c := learn.NewContent(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Learn(learn.ContentExample{IDs: ids[i%len(ids)], Spam: ms[i%len(ms)].spam, Weight: 1})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "examples/s")
}
