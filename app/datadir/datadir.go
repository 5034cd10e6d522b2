// Package datadir says where Scouts keeps its files on this machine: the
// data directory, the configuration folder, the first run's inbox, and the
// agent's socket and token inside the data directory. The agent, the
// command line and the window all compute these the same way; as a leaf
// package, the window finds the agent's socket without linking the agent.
package datadir

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultDataDir is where the agent keeps its data when --data is not
// given: $SCOUTS_DATA, else the OS's per-user data directory.
func DefaultDataDir() (string, error) {
	if d := os.Getenv("SCOUTS_DATA"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	switch runtime.GOOS {
	case "darwin":
		if err != nil {
			return "", fmt.Errorf("datadir: %w", err)
		}
		return filepath.Join(home, "Library", "Application Support", "Scouts"), nil
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "Scouts"), nil
		}
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "scouts"), nil
	}
	if err != nil {
		return "", fmt.Errorf("datadir: %w", err)
	}
	return filepath.Join(home, ".local", "share", "scouts"), nil
}

// DefaultConfigDir is the user's Scouts configuration folder (scout
// definitions will live in its scouts.d): the OS's per-user configuration
// directory, e.g. $XDG_CONFIG_HOME/scouts. "" when there is none.
func DefaultConfigDir() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "scouts")
}

// DefaultInbox is the folder the first run watches: ~/Scouts/Inbox.
func DefaultInbox() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, "Scouts", "Inbox")
}

// maxSocketPath stays under the smallest sun_path of the platforms we run
// on (104 bytes on macOS, 108 on Linux).
const maxSocketPath = 100

// SocketPath is where the agent for dataDir listens. It is in the data
// directory unless that path is too long for a Unix socket; then it is a
// name derived from the data directory in the temporary directory, which
// the CLI computes the same way.
func SocketPath(dataDir string) string {
	p := filepath.Join(dataDir, "agent.sock")
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("scouts-%d-%x.sock", os.Getuid(), sum[:6]))
}

// TokenPath is the file holding the loopback listener's bearer token.
func TokenPath(dataDir string) string { return filepath.Join(dataDir, "local-api.token") }

// MCPTokenPath is the file holding the bearer token of Scouts' MCP
// endpoint over HTTP (its own: it opens that endpoint only).
func MCPTokenPath(dataDir string) string { return filepath.Join(dataDir, "mcp.token") }
