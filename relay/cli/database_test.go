//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/internal/syncbuf"
	"github.com/scouts-hq/scouts/relay/relaydb"
)

// createDatabase makes the database a relay that has run would leave.
func createDatabase(t *testing.T, path string) {
	t.Helper()
	db, err := relaydb.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// announcer is serve's stdout: it tells when the relay is listening.
type announcer struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	listening chan struct{}
	once      sync.Once
}

func (a *announcer) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if strings.Contains(a.buf.String(), " listening on ") {
		a.once.Do(func() { close(a.listening) })
	}
	return len(p), nil
}

// served is `scouts-relay serve` running in this process.
type served struct {
	t      *testing.T
	cancel context.CancelFunc
	done   chan int
	stderr *syncbuf.Buffer
}

// startServe runs `scouts-relay serve --listen 127.0.0.1:0` with env and
// returns once it listens.
func startServe(t *testing.T, env map[string]string, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &announcer{listening: make(chan struct{})}
	s := &served{t: t, cancel: cancel, done: make(chan int, 1), stderr: &syncbuf.Buffer{}}
	go func() {
		s.done <- runCommand(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...),
			Env{Stdout: out, Stderr: s.stderr, Getenv: func(k string) string { return env[k] }})
	}()
	select {
	case <-out.listening:
	case code := <-s.done:
		cancel()
		t.Fatalf("serve exited with %d before listening:\n%s", code, s.stderr.String())
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatalf("serve did not listen within 60 s:\n%s", s.stderr.String())
	}
	t.Cleanup(func() { s.stop() })
	return s
}

// stop ends serve and returns its log.
func (s *served) stop() string {
	s.t.Helper()
	s.cancel()
	if code, ok := <-s.done; ok {
		close(s.done)
		if code != 0 {
			s.t.Errorf("serve exited with %d:\n%s", code, s.stderr.String())
		}
	}
	return s.stderr.String()
}

// runOut is run with stdout too.
func runOut(args []string, env map[string]string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runCommand(context.Background(), args, Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errb.String()
}

// noRelayDB fails if dir holds a relay.db.
func noRelayDB(t *testing.T, dir, when string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "relay.db")); err == nil {
		t.Errorf("%s: a relay.db was created in %s", when, dir)
	}
}

// The relay's database is in its state directory whatever the working
// directory: the admin commands run from anywhere find the relay's users
// and devices. Before a relay has run they refuse, saying where they
// looked, and create nothing; serve creates it and says so in its log.
func TestAdminCommandsFindTheRelayDatabaseFromAnyDirectory(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")}
	want := filepath.Join(home, "state", "scouts-relay", "relay.db")

	first := t.TempDir()
	t.Chdir(first)
	code, out, stderr := runOut([]string{"device", "list", "ann@example.com"}, env)
	if code != 1 || !strings.Contains(stderr, "no relay database at "+want) || !strings.Contains(stderr, "scouts-relay serve") ||
		!strings.Contains(stderr, "--database") {
		t.Fatalf("device list before any relay ran: exit %d, %q %q; want refused naming %s", code, out, stderr, want)
	}
	noRelayDB(t, first, "device list before any relay ran")
	if _, err := os.Stat(filepath.Dir(want)); err == nil {
		t.Errorf("device list before any relay ran created %s", filepath.Dir(want))
	}
	if code, _, stderr := runOut([]string{"user", "add", "ann@example.com"}, env); code != 1 || !strings.Contains(stderr, "no relay database at "+want) {
		t.Fatalf("user add before any relay ran: exit %d, %q", code, stderr)
	}

	// serve, started elsewhere, creates the database in the state
	// directory and says so.
	t.Chdir(t.TempDir())
	relay := startServe(t, env)
	if log := relay.stderr.String(); !strings.Contains(log, `"msg":"created a new relay database"`) || !strings.Contains(log, want) {
		t.Errorf("serve's log does not say it created %s:\n%s", want, log)
	}
	if fi, err := os.Stat(filepath.Dir(want)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the state directory: %v, %v; want created 0700", fi, err)
	}

	second := t.TempDir()
	t.Chdir(second)
	for _, args := range [][]string{{"user", "add", "ann@example.com"}, {"device", "add", "ann@example.com", "--name", "laptop"}} {
		if code, out, stderr := runOut(args, env); code != 0 {
			t.Fatalf("%v: exit %d, %s %s", args, code, out, stderr)
		}
	}
	third := t.TempDir()
	t.Chdir(third)
	code, out, stderr = runOut([]string{"device", "list", "ann@example.com"}, env)
	if code != 0 || !strings.Contains(out, "laptop") {
		t.Fatalf("device list from another directory: exit %d, %q %q; want the laptop", code, out, stderr)
	}
	for _, dir := range []string{first, second, third} {
		noRelayDB(t, dir, "the admin commands")
	}

	// A restarted relay opens the same database, and says which.
	relay.stop()
	if log := startServe(t, env).stderr.String(); !strings.Contains(log, `"msg":"opened the relay database"`) || !strings.Contains(log, want) {
		t.Errorf("a restarted relay's log does not name %s:\n%s", want, log)
	}
}

// An explicit --database that names no database is refused by the admin
// commands as well, and nothing is created there.
func TestAdminCommandsRefuseAMissingDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	code, _, stderr := runOut([]string{"device", "revoke", "dv_1", "--database", path}, nil)
	if code != 1 || !strings.Contains(stderr, "no relay database at "+path) {
		t.Fatalf("device revoke on a missing database: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the admin command created the database")
	}
}

// Under systemd (StateDirectory=) the database is in $STATE_DIRECTORY;
// otherwise in the XDG state directory, or ~/.local/state without it.
func TestDefaultDatabasePath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"STATE_DIRECTORY": "/var/lib/scouts-relay:/var/lib/other", "XDG_STATE_HOME": "/x", "HOME": "/home/a"}, "/var/lib/scouts-relay/relay.db"},
		{map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/home/a"}, "/x/scouts-relay/relay.db"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/a"}, "/home/a/.local/state/scouts-relay/relay.db"},
		{map[string]string{"HOME": "/home/a"}, "/home/a/.local/state/scouts-relay/relay.db"},
	} {
		got, err := defaultDatabase(func(k string) string { return tc.env[k] })
		if err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
	if _, err := defaultDatabase(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "--database") {
		t.Errorf("no HOME nor state directory: %v; want an error pointing to --database", err)
	}
}
