package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
)

// reportLatency reports the median, 95th and 99th percentiles of ds.
func reportLatency(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkFileToSuggestion measures the time from a file's creation (the
// write and close) to its suggestion.created event, through the real
// agent core: fsnotify, debounce, scan, hash, SQLite commit, event bus.
// The settle sub-benchmarks show the cost of the default quiet period
// (which keeps half-written files from being suggested) against the
// machinery alone.
func BenchmarkFileToSuggestion(b *testing.B) {
	for _, settle := range []string{"250ms", "1ms"} {
		b.Run("settle="+settle, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := core.Open(ctx, core.Config{DataDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(ctx); err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			cfg := fmt.Sprintf(`{"path":%q,"settle":%q}`, dir, settle)
			if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "bench", Review: true, Enabled: true, Config: []byte(cfg)}); err != nil {
				b.Fatal(err)
			}
			sub, _, _ := c.Bus.Subscribe(0, 1024)
			defer sub.Close()
			var ds []time.Duration
			b.ResetTimer()
			for i := range b.N {
				p := filepath.Join(dir, fmt.Sprintf("n%d-%d.md", time.Now().UnixNano(), i))
				start := time.Now()
				if err := os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nbody %d\n", i, i)), 0o644); err != nil {
					b.Fatal(err)
				}
				waitCreated(b, sub)
				ds = append(ds, time.Since(start))
			}
			b.StopTimer()
			reportLatency(b, ds)
		})
	}
}

func waitCreated(b *testing.B, sub *bus.Subscription) {
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-sub.C:
			if !ok {
				b.Fatal("subscription dropped")
			}
			if m.Event.Type == scouts.EventSuggestionCreated {
				return
			}
		case <-deadline:
			b.Fatal("no suggestion within 30s")
		}
	}
}

// BenchmarkFloorFsnotify is the floor for BenchmarkFileToSuggestion: the
// time from writing a file to fsnotify reporting it, with nothing else.
func BenchmarkFloorFsnotify(b *testing.B) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	dir := b.TempDir()
	if err := w.Add(dir); err != nil {
		b.Fatal(err)
	}
	var ds []time.Duration
	b.ResetTimer()
	for i := range b.N {
		p := filepath.Join(dir, fmt.Sprintf("f%d.md", i))
		start := time.Now()
		if err := os.WriteFile(p, []byte("# x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		for ev := range w.Events {
			if ev.Name == p && ev.Has(fsnotify.Write) {
				break
			}
		}
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	reportLatency(b, ds)
}
