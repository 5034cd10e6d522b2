package learn_test

import (
	"context"
	"syscall"
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

// benchArrival measures the heuristics' verdict and the learner's
// features for every message, and predict (when set) on them.
func benchArrival(b *testing.B, predict func(fs []learn.Feature)) {
	ms, _, _ := trained(b)
	p, err := triage.New(triage.Config{Scout: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		m := ms[i%len(ms)].m
		if _, err := p.Triage(ctx, m); err != nil {
			b.Fatal(err)
		}
		fs := learn.Extract(item(m), 1)
		if predict != nil {
			predict(fs)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		// On a machine shared with other work the wall clock counts
		// their time too; the process's CPU time does not.
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "msgs/CPU-s")
	}
}

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLearnerAndHeuristics is what an arriving mail costs the
// product's learner and the heuristics together: the heuristics' verdict,
// the features, and the prediction (spam, approval and kind) from the
// counts of a scout taught 1,600 decisions, in memory as the desktop
// caches them, with the content spam model mixed in (the default).
func BenchmarkLearnerAndHeuristics(b *testing.B) {
	_, model, tbl := trained(b)
	benchArrival(b, func(fs []learn.Feature) {
		if _, err := model.Predict(tbl, fs, model.Epoch); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkLearnerCountsOnly is the same with the counts alone
// (learn.Params.CountsOnly): the learner before the content model.
func BenchmarkLearnerCountsOnly(b *testing.B) {
	_, model, tbl := trained(b)
	model.Params.CountsOnly = true
	benchArrival(b, func(fs []learn.Feature) {
		if _, err := model.Predict(tbl, fs, model.Epoch); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkFloorHeuristicsAndFeatures is the floor of the two above:
// the heuristics and the features, no prediction.
func BenchmarkFloorHeuristicsAndFeatures(b *testing.B) { benchArrival(b, nil) }

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

// BenchmarkContentSettle trains the content model from 3,200 stored
// examples, the last settling point (learn.Settled): five passes over all
// of them. It is what an undo costs once that many examples are stored,
// and what a prediction pays once when the examples reach a settling
// point; BenchmarkContentLearn's one step per example is its floor.
func BenchmarkContentSettle(b *testing.B) {
	ms, _, _ := trained(b)
	ex := make([]learn.ContentExample, 3200)
	for i := range ex {
		bm := ms[i%len(ms)]
		ex[i] = learn.ContentExample{IDs: learn.HashIDs(learn.Hashes(learn.Extract(item(bm.m), uint64(i/len(ms)+1)))), Spam: bm.spam, Weight: 1}
	}
	if learn.Settled(ex) != len(ex) {
		b.Fatalf("settled %d of %d", learn.Settled(ex), len(ex))
	}
	c := learn.NewContent(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Train(ex)
	}
	b.ReportMetric(float64(b.N*len(ex))/b.Elapsed().Seconds(), "examples/s")
}
