package mailtext

import (
	"testing"

	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
)

// BenchmarkMailText extracts the body text (cut to 2,000 characters) of
// each development message in turn.
func BenchmarkMailText(b *testing.B) {
	c := corpustest.ForTest(b)
	var raws [][]byte
	total := 0
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range items {
			raws = append(raws, it.Raw)
			total += len(it.Raw)
		}
	}
	b.SetBytes(int64(total / len(raws))) // the mean message size
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Extract(raws[i%len(raws)], triage.ModelBodyRunes); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
