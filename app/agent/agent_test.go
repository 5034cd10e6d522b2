//go:build unix

package agent

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/internal/syncbuf"
)

// runAgent runs the agent on dataDir until the test ends; it returns once
// the API answers, or with the error Run returned first.
func runAgent(t *testing.T, dataDir string, log *syncbuf.Buffer) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{DataDir: dataDir, ConfigDir: filepath.Join(t.TempDir(), "config"), Version: "test",
			Logger: slog.New(slog.NewTextHandler(log, nil)), Ready: func(string) { close(ready) }})
	}()
	select {
	case <-ready:
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("agent: %v", err)
			}
		})
		return nil
	case err := <-done:
		cancel()
		return err
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the agent did not start within 30s")
		return nil
	}
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// An existing data directory open to others (0755, as --data pointed at a
// folder made by hand) is made private and says so; the database, its WAL
// and shared memory, the token and the lock are created 0600 whatever the
// umask.
func TestDataDirectoryAndFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var log syncbuf.Buffer
	if err := runAgent(t, dir, &log); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, dir); m != 0o700 {
		t.Errorf("data directory mode %#o; want 0700", m)
	}
	if !strings.Contains(log.String(), "made it private") {
		t.Errorf("no log line says the data directory was tightened:\n%s", log.String())
	}
	for _, name := range []string{"scouts.db", "scouts.db-wal", "scouts.db-shm", "local-api.token", "agent.lock"} {
		if m := mode(t, filepath.Join(dir, name)); m != 0o600 {
			t.Errorf("%s mode %#o; want 0600", name, m)
		}
	}
}

// A data directory open to others that belongs to someone else is not ours
// to change: the agent refuses to start and says what to do.
func TestDataDirectoryOfAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a folder to another user")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	var log syncbuf.Buffer
	err := runAgent(t, dir, &log)
	if err == nil || !strings.Contains(err.Error(), "open to other users") || !strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("agent on another user's open folder: %v; want a refusal that says how to fix it", err)
	}
	if m := mode(t, dir); m != 0o777 {
		t.Errorf("mode changed to %#o", m)
	}
	if st, _ := os.Stat(dir); st.Sys().(*syscall.Stat_t).Uid != 65534 {
		t.Error("owner changed")
	}
}
