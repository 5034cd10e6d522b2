//go:build unix

package agent

import (
	"fmt"
	"log/slog"
	"os"
	"syscall"
)

// makePrivate makes the data directory reachable by its owner only: it
// holds the database, the API token and the socket. A directory of ours
// that is open to others (--data pointed at a folder made by hand) is
// tightened, and the log says so; one that is not ours, or that cannot be
// changed, is refused with what to do.
func makePrivate(dir string, log *slog.Logger) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("agent: data dir: %w", err)
	}
	m := fi.Mode().Perm()
	if m&0o077 == 0 {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("agent: data directory %s is open to other users (mode %#o) and belongs to another user: "+
			"make it private (chmod 700 %s) or choose another with --data", dir, m, dir)
	}
	if err := os.Chmod(dir, m&0o700); err != nil {
		return fmt.Errorf("agent: data directory %s is open to other users (mode %#o) and cannot be made private: %w; "+
			"chmod 700 it or choose another with --data", dir, m, err)
	}
	log.Info("the data directory was open to other users; made it private", "dir", dir, "was", fmt.Sprintf("%#o", m), "now", fmt.Sprintf("%#o", m&0o700))
	return nil
}
