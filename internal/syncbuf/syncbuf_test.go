package syncbuf_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/scouts-hq/scouts/internal/syncbuf"
)

// Lines written from many goroutines while the test reads all land whole
// (run with -race, a buffer without its lock fails here).
func TestWritesFromManyGoroutines(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := strings.Count(b.String(), "line\n"); got != 800 {
		t.Fatalf("%d lines; want 800", got)
	}
}

// A write wakes whoever took Next before it, after what it wrote can be
// read.
func TestNextClosesAfterAWrite(t *testing.T) {
	var b syncbuf.Buffer
	next := b.Next()
	select {
	case <-next:
		t.Fatal("Next closed before any write")
	default:
	}
	go b.Write([]byte("ready\n"))
	<-next
	if !strings.Contains(b.String(), "ready") {
		t.Fatalf("woken before the write landed: %q", b.String())
	}
}
