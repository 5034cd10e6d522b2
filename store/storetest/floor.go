package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/store"
)

// CommitFloor times n single-row commits on a fresh SQLite file opened
// with the agent's options: what any durable write costs on this disk.
// Benchmarks of a write path report their times beside it, measured in the
// same run, since the machines are shared and noisy.
func CommitFloor(tb testing.TB, n int) []time.Duration {
	tb.Helper()
	ctx := context.Background()
	db, err := store.OpenSQLite(ctx, filepath.Join(tb.TempDir(), "floor.db"), store.Options{BackgroundCheckpoint: time.Second, Readers: 2})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Writer().ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		tb.Fatal(err)
	}
	out := make([]time.Duration, 0, n)
	for i := range n {
		t0 := time.Now()
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO t (v) VALUES (?)`, fmt.Sprint("row ", i))
			return err
		}); err != nil {
			tb.Fatal(err)
		}
		out = append(out, time.Since(t0))
	}
	return out
}

// ReportBesideFloor reports the median and p95 of a benchmark's times
// beside those of its floor (CommitFloor), in milliseconds, and the
// ratio of the medians.
func ReportBesideFloor(b *testing.B, times, floor []time.Duration) {
	p50, p95 := Percentile(times, 50), Percentile(times, 95)
	f50, f95 := Percentile(floor, 50), Percentile(floor, 95)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(f50.Microseconds())/1000, "floor-p50-ms")
	b.ReportMetric(float64(f95.Microseconds())/1000, "floor-p95-ms")
	b.ReportMetric(float64(p50)/float64(f50), "p50/floor")
}

// Percentile returns the p-th percentile of d (nearest rank).
func Percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}
