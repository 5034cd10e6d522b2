//go:build chaos

package chaos

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// pgCluster is a PostgreSQL server of the suite's own: initdb in a
// temporary directory, a free loopback port, trust authentication. The
// machine's shared server is never touched.
type pgCluster struct {
	bin  string // directory of initdb, pg_ctl, postgres
	dir  string
	data string
	port int
	cred *syscall.Credential // PostgreSQL refuses to run as root
}

// postgresBin finds the PostgreSQL server binaries: $CHAOS_PG_BIN, the
// newest /usr/lib/postgresql/*/bin (Debian), or pg_ctl on the PATH.
func postgresBin(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("CHAOS_PG_BIN"); d != "" {
		return d
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p)
	}
	t.Fatal("no PostgreSQL server binaries (initdb, pg_ctl): install postgresql, or set CHAOS_PG_BIN")
	return ""
}

func startPostgres(t *testing.T) *pgCluster {
	t.Helper()
	c := &pgCluster{bin: postgresBin(t)}
	// Not under t.TempDir: the server's user must reach it, and a test's
	// temporary directories are private to the user running the test.
	dir, err := os.MkdirTemp("", "scouts-chaos-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir, c.data = dir, filepath.Join(dir, "data")
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			u, err = user.Lookup("nobody")
		}
		if err != nil {
			t.Fatalf("running as root and no postgres or nobody user to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	c.run(t, "initdb", "-D", c.data, "-U", "scouts", "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync")
	// Sockets in the private directory only: the shared server's
	// /var/run/postgresql is none of our business.
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -c unix_socket_directories=%s -c max_connections=200", c.port, c.dir)
	c.run(t, "pg_ctl", "-D", c.data, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start")
	t.Cleanup(func() {
		cmd := c.cmd("pg_ctl", "-D", c.data, "-m", "immediate", "-w", "stop")
		cmd.Run()
	})
	return c
}

func (c *pgCluster) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

func (c *pgCluster) run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := c.cmd(name, args...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		t.Fatalf("%s %s: %v\n%s\nserver log:\n%s", name, strings.Join(args, " "), err, out, log)
	}
}

// dsn is the cluster's default database.
func (c *pgCluster) dsn() string {
	return fmt.Sprintf("postgres://scouts@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// restart restarts the server: "fast" (clients disconnected, a clean
// shutdown) or "immediate" (no shutdown checkpoint: crash recovery at
// start). pg_ctl keeps the options of the last start.
func (c *pgCluster) restart(t *testing.T, mode string) {
	t.Helper()
	c.run(t, "pg_ctl", "-D", c.data, "-l", filepath.Join(c.dir, "server.log"), "-m", mode, "-w", "-t", "60", "restart")
}

// postgresRestart: two relays on the suite's own PostgreSQL, posters
// spread over both, the desktop on the first; the server restarted
// several times under load (fast and immediate), and each relay SIGKILLed
// twice among the restarts.
func postgresRestart(t *testing.T, s *scenario) {
	const items = 4000
	pg := startPostgres(t)
	s.logf("PostgreSQL up on port %d", pg.port)
	w := newHookWorld(t, s, pg.dsn())
	b := startRelay(t, s.bins, pg.dsn(), nil)
	s.logf("two relays and a desktop up")
	urls := []string{w.hook.HookURL, strings.Replace(w.hook.HookURL, w.relay.url, b.url, 1)}
	events := []string{"pg fast", "pg immediate", "pg fast", "pg immediate", "kill relay A", "kill relay B", "kill relay A", "kill relay B"}
	s.rng.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	l := newLedger()
	done := w.poster.postAll(s.ctx, l, urls, 0, items, 8)
	for i, at := range s.points(len(events), items/10, items*9/10) {
		untilCount(t, s.ctx, "accepted items", int64(at), l.n.Load, l.added.Next)
		switch ev := events[i]; ev {
		case "kill relay A":
			w.relay.restart(t)
		case "kill relay B":
			b.restart(t)
		default:
			pg.restart(t, strings.TrimPrefix(ev, "pg "))
		}
		s.res.kills++
		s.logf("%s at %d accepted", events[i], at)
	}
	waitDone(t, s.ctx, done)
	s.logf("all %d items accepted", items)
	for _, r := range []*relayProc{w.relay, b} {
		select {
		case <-r.exited:
			t.Errorf("relay %s exited during the restarts:\n%s", r.url, r.log.String())
		default:
		}
	}
	w.count(t, s.ctx, l, s.res)
	s.res.note("in order: %s; two relays (A with the desktop), posters on both", strings.Join(events, ", "))
}
