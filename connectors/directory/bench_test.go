package directory_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
	"github.com/scouts-hq/scouts/scouts"
)

// The 100 000-file tree is built once per test binary and removed by
// TestMain: building it takes longer than scanning it.
const (
	benchDirs    = 1000
	benchPerDir  = 100
	benchFiles   = benchDirs * benchPerDir
	benchGroups  = 10 // top-level folders, each holding benchDirs/benchGroups folders
	benchSubdirs = benchDirs / benchGroups
)

type benchTree struct {
	once sync.Once
	dir  string
	err  error
}

var tree100k benchTree

func TestMain(m *testing.M) {
	code := m.Run()
	if tree100k.dir != "" {
		os.RemoveAll(tree100k.dir)
	}
	os.Exit(code)
}

// root returns the tree's root, building it on first use.
func (t *benchTree) root(b *testing.B) string {
	b.Helper()
	t.once.Do(func() {
		t.dir, t.err = os.MkdirTemp("", "scouts-bench-")
		if t.err != nil {
			return
		}
		root := filepath.Join(t.dir, "tree")
		for g := range benchGroups {
			for d := range benchSubdirs {
				dir := filepath.Join(root, fmt.Sprintf("g%d", g), fmt.Sprintf("d%02d", d))
				if t.err = os.MkdirAll(dir, 0o755); t.err != nil {
					return
				}
				for f := range benchPerDir {
					body := fmt.Sprintf("# Note %d-%d-%d\n\nSome text for the excerpt.\n", g, d, f)
					if t.err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%03d.md", f)), []byte(body), 0o644); t.err != nil {
						return
					}
				}
			}
		}
	})
	if t.err != nil {
		b.Fatalf("build the benchmark tree: %v", t.err)
	}
	return filepath.Join(t.dir, "tree")
}

// heapPeak samples the Go heap in use while it runs, without stopping the
// world (runtime/metrics, unlike ReadMemStats).
type heapPeak struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	read := func() {
		metrics.Read(samples)
		if v := samples[0].Value.Uint64() + samples[1].Value.Uint64(); v > h.peak {
			h.peak = v
		}
	}
	go func() {
		defer close(h.done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// end stops sampling and returns the peak in MiB.
func (h *heapPeak) end() float64 {
	close(h.stop)
	<-h.done
	return float64(h.peak) / (1 << 20)
}

// newBenchIndex creates a fresh SQLite database with one folder scout.
func newBenchIndex(b *testing.B, dir string) (*localdb.DB, directory.Index) {
	b.Helper()
	ctx := context.Background()
	db, err := localdb.Open(ctx, filepath.Join(dir, "scouts.db"))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	if err := db.CreateScout(ctx, scouts.Scout{ID: "sc_bench", Kind: scouts.KindFolder, Name: "bench", Enabled: true,
		Review: true, Config: []byte(`{}`), CreatedAt: now, UpdatedAt: now}); err != nil {
		b.Fatal(err)
	}
	return db, db.FolderIndex("sc_bench")
}

func countItems(b *testing.B, c *directory.Connector) int {
	b.Helper()
	n := 0
	err := c.ListNew(context.Background(), func(_ context.Context, items []scouts.ItemRef) error {
		n += len(items)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkFirstScan100k is a new scout's first (baseline) scan of a
// 100 000-file tree into a fresh index.
func BenchmarkFirstScan100k(b *testing.B) {
	root := tree100k.root(b)
	b.ReportAllocs()
	var peak float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tmp := b.TempDir()
		db, idx := newBenchIndex(b, tmp)
		runtime.GC()
		b.StartTimer()
		h := startHeapPeak()
		c, err := directory.New(directory.Options{ScoutID: "sc_bench", Config: directory.Config{Path: root}, Index: idx})
		if err != nil {
			b.Fatal(err)
		}
		if n := countItems(b, c); n != 0 {
			b.Fatalf("baseline scan reported %d items", n)
		}
		peak = max(peak, h.end())
		b.StopTimer()
		if m, _ := idx.LoadDir(context.Background(), "g9/d99"); len(m) != benchPerDir {
			b.Fatalf("index holds %d entries of the last folder; want %d", len(m), benchPerDir)
		}
		c.Close()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(peak, "peak-heap-MiB")
}

// BenchmarkFloorWalk100k is the floor: listing and lstat-ing the same tree
// with the standard library and nothing else.
func BenchmarkFloorWalk100k(b *testing.B) {
	root := tree100k.root(b)
	b.ReportAllocs()
	var peak float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		h := startHeapPeak()
		n := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if _, err := d.Info(); err != nil {
				return err
			}
			if d.Type().IsRegular() {
				n++
			}
			return nil
		})
		peak = max(peak, h.end())
		if err != nil || n != benchFiles {
			b.Fatalf("walked %d files: %v", n, err)
		}
	}
	b.ReportMetric(peak, "peak-heap-MiB")
}

// BenchmarkScanChanged1 is the scan that follows one changed file in an
// indexed 100 000-file tree: the watcher marks one directory dirty and the
// scan lists that directory alone.
func BenchmarkScanChanged1(b *testing.B) {
	root := tree100k.root(b)
	db, idx := newBenchIndex(b, b.TempDir())
	defer db.Close()
	cfg := directory.Config{Path: root, Settle: directory.Duration(time.Millisecond)}
	c, err := directory.New(directory.Options{ScoutID: "sc_bench", Config: cfg, Index: idx,
		Now: func() time.Time { return time.Now().Add(time.Minute) }})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	watchtest.Need(b)
	n := newNotifier()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Watch(ctx, n.notify) }()
	defer func() { cancel(); <-done }()
	n.wait(b, "Watch started")
	countItems(b, c) // the baseline

	target := filepath.Join(root, "g3", "d42", "n007.md")
	orig, err := os.ReadFile(target)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(target, orig, 0o644)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		n.drain()
		if err := os.WriteFile(target, fmt.Appendf(nil, "# Changed %d\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		n.wait(b, "a file changed")
		b.StartTimer()
		if got := countItems(b, c); got != 1 {
			b.Fatalf("incremental scan found %d items; want 1", got)
		}
	}
}

// BenchmarkCountFiles100k is the count a folder scout's creation makes to
// warn about a large tree (CountFiles), over the 100 000-file tree.
func BenchmarkCountFiles100k(b *testing.B) {
	root := tree100k.root(b)
	for i := 0; i < b.N; i++ {
		n, err := directory.CountFiles(context.Background(), directory.Config{Path: root}, nil, benchFiles+1)
		if err != nil || n != benchFiles {
			b.Fatalf("counted %d files: %v", n, err)
		}
	}
}
