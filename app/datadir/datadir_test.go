package datadir

import (
	"path/filepath"
	"strings"
	"testing"
)

// The socket sits in the data directory unless that would be too long for a
// Unix socket; then every program computing it (agent, command line,
// window) lands on the same short name, and two data directories never
// share one.
func TestSocketPathFitsAUnixSocket(t *testing.T) {
	short := filepath.Join(t.TempDir(), "data")
	if got := SocketPath(short); got != filepath.Join(short, "agent.sock") {
		t.Fatalf("SocketPath(%s) = %s, want it inside the data directory", short, got)
	}
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	got := SocketPath(long)
	if len(got) > maxSocketPath || strings.HasPrefix(got, long) {
		t.Fatalf("SocketPath of a %d-byte directory = %s (%d bytes), want a short name outside it", len(long), got, len(got))
	}
	if again := SocketPath(long); again != got {
		t.Fatalf("SocketPath is not stable: %s then %s", got, again)
	}
	if other := SocketPath(long + "x"); other == got {
		t.Fatalf("two data directories share the socket %s", got)
	}
}
