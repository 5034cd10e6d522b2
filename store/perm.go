package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// privateFiles makes a SQLite database and its WAL and shared-memory files
// readable by their owner only. The driver's VFS creates files 0666 less
// the umask (usually 0644), so the database and its shared-memory file are
// created 0600 before SQLite opens them (SQLite keeps the mode of a file
// that exists; the shared memory lives as long as a connection is open,
// and the pools keep one), and the WAL, deleted and re-created as the
// database is closed and opened, takes the database's mode (the modeof
// parameter in OpenSQLite). What an older version or a copy left too open
// is tightened.
func privateFiles(path string) error {
	if runtime.GOOS == "windows" {
		return nil // permission bits mean little there; the profile's ACLs apply
	}
	for _, p := range []string{path, path + "-shm"} {
		f, err := os.OpenFile(p, os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("store: create %s: %w", p, err)
		}
		f.Close()
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if m := fi.Mode().Perm(); m&0o077 != 0 {
			if err := os.Chmod(p, m&0o700); err != nil {
				return fmt.Errorf("store: %s is open to other users (mode %#o) and cannot be made private: %w; chmod 600 it", p, m, err)
			}
		}
	}
	return nil
}
