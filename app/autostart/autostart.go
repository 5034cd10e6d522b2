// Package autostart starts the agent at login: an XDG autostart entry on
// Linux ($XDG_CONFIG_HOME/autostart/scouts.desktop), a LaunchAgent on
// macOS (~/Library/LaunchAgents/app.scouts.agent.plist) and the HKCU Run
// key on Windows. The agent keeps it in line with the "autostart" setting:
// when the setting changes and at every start (so the entry follows the
// binary when it moves).
//
// An entry names the data directory it was made for, and an agent only
// removes or rewrites the entry of its own data directory when its setting
// is off: a test or a second agent on another data directory cannot take
// away the user's entry.
package autostart

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Entry is what starts at login.
type Entry struct {
	// Exe is the scouts binary (absolute).
	Exe string
	// DataDir is the agent's data directory; it is passed with --data
	// unless it is the default one (DefaultData true).
	DataDir     string
	DefaultData bool
}

// Args is the command line after Exe.
func (e Entry) Args() []string {
	if e.DefaultData {
		return []string{"agent"}
	}
	return []string{"agent", "--data", e.DataDir}
}

// ErrUnsupported: this system has no autostart mechanism we know.
var ErrUnsupported = errors.New("autostart is not supported on this system")

// Sync makes the login entry match enabled: written (or rewritten) when
// enabled, removed when disabled and it is this data directory's.
func Sync(e Entry, enabled bool) error {
	if !filepath.IsAbs(e.Exe) {
		return errors.New("autostart: the binary's path must be absolute")
	}
	if enabled {
		return install(e)
	}
	return uninstall(e)
}

// Path is where the entry lives on this system ("" if unsupported).
func Path() (string, error) { return entryPath() }

// removeOwn removes the entry at p unless it names another data directory
// (ours reports whether its content is this agent's): the part of uninstall
// every system shares.
func removeOwn(p string, ours func([]byte) bool) error {
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if !ours(b) {
		return nil // another data directory's agent starts at login
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}
