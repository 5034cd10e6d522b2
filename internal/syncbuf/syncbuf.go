// Package syncbuf is a buffer that a test reads while the code under test
// writes to it from other goroutines: a logger's output, a command's
// stderr. bytes.Buffer alone is not safe for that, and each test package
// had grown its own locked copy.
package syncbuf

import (
	"bytes"
	"sync"

	"github.com/scouts-hq/scouts/internal/wake"
)

// Buffer is a bytes.Buffer behind a mutex. The zero value is ready to use.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written wake.Wake
}

// Write appends p; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	defer b.written.Fire()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// Next returns a channel closed by the next Write: a test waiting for
// what a process logs, or for state the process changes before it logs,
// looks again each time (see internal/wake).
func (b *Buffer) Next() <-chan struct{} { return b.written.Next() }

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
