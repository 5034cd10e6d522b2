//go:build chaos

package chaos

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/internal/streamwake"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/internal/wake"
)

// bins are the binaries under test, built once for the whole suite from
// the working tree (as app/e2e builds them).
type bins struct {
	scouts, relay string
}

func buildBins(t *testing.T) bins {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b := bins{scouts: filepath.Join(dir, "scouts"), relay: filepath.Join(dir, "scouts-relay")}
	for pkg, out := range map[string]string{".": b.scouts, "./relay/cmd/scouts-relay": b.relay} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, o)
		}
	}
	return b
}

// tailBuffer keeps the last part of a process's log: enough to explain a
// failure, bounded however long the scenario runs.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 256 << 10

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*tailMax {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.buf)
	if len(s) > 8000 {
		s = "…" + s[len(s)-8000:]
	}
	return s
}

// proc is one run of a binary.
type proc struct {
	cmd    *exec.Cmd
	log    *tailBuffer
	exited chan struct{}
}

// start runs bin and waits for a line of its stdout that found returns a
// value for, within a minute.
func start(t *testing.T, bin string, args, env []string, found func(line string) (string, bool)) (*proc, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, log: &tailBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.exited) }()
	t.Cleanup(p.kill)
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if v, ok := found(sc.Text()); ok {
				got <- v
				break
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case v := <-got:
		return p, v
	case <-p.exited:
		t.Fatalf("%s exited before serving:\n%s", filepath.Base(bin), p.log.String())
	case <-time.After(time.Minute):
		t.Fatalf("%s did not start within a minute:\n%s", filepath.Base(bin), p.log.String())
	}
	return nil, ""
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *proc) kill() {
	if p.cmd.Process != nil {
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
	}
}

// stop ends the process with SIGTERM (a graceful shutdown).
func (p *proc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not exit within 30s of SIGTERM", p.cmd.Path)
	}
}

// agent is a running `scouts agent` and how it was started, to start it
// again on the same data directory after a kill.
type agent struct {
	*proc
	b       bins
	dataDir string
	home    string
	env     []string
	flags   []string
	client  *localclient.Client
	// changes fires after each event of the running process's stream,
	// once watching starts (changed); each start watches anew.
	changes  wake.Wake
	watching *sync.Once
}

func minimalEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}
}

func startAgent(t *testing.T, b bins, dataDir, home string, env []string, flags ...string) *agent {
	t.Helper()
	a := &agent{b: b, dataDir: dataDir, home: home, env: env, flags: flags}
	a.start(t)
	return a
}

// start runs the agent and waits until its API answers (it prints the URL
// only once it serves).
func (a *agent) start(t *testing.T) {
	t.Helper()
	args := append([]string{"agent", "--data", a.dataDir, "--listen", "127.0.0.1:0", "--inbox", "", "--no-tray"}, a.flags...)
	p, url := start(t, a.b.scouts, args, append(minimalEnv(a.home), a.env...), func(line string) (string, bool) {
		u, ok := strings.CutPrefix(line, "Local API: ")
		if !ok {
			return "", false
		}
		return strings.TrimSuffix(strings.Fields(u)[0], "/api/v1/"), true
	})
	tok, err := os.ReadFile(filepath.Join(a.dataDir, "local-api.token"))
	if err != nil {
		t.Fatal(err)
	}
	a.proc = p
	a.client = localclient.NewTCP(url, strings.TrimSpace(string(tok)))
	a.watching = &sync.Once{}
}

// changed is a source that fires after each event of the running agent's
// stream (see streamwake); it opens the stream on the first call after a
// start. A kill ends it.
func (a *agent) changed(t *testing.T) wake.Source {
	t.Helper()
	a.watching.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		done, err := streamwake.Follow(ctx, a.client, &a.changes, t.Errorf)
		if err != nil {
			cancel()
			t.Fatalf("watching the agent's stream: %v", err)
		}
		t.Cleanup(func() { cancel(); <-done })
	})
	return a.changes.Next
}

// restart kills the agent and starts it again on the same data.
func (a *agent) restart(t *testing.T) {
	t.Helper()
	a.kill()
	a.start(t)
}

// relayProc is a running `scouts-relay serve`, restartable at the same
// address so that desktops and webhook URLs find it again.
type relayProc struct {
	*proc
	b     bins
	dsn   string
	addr  string // host:port, fixed after the first start
	url   string
	env   []string
	flags []string
}

func startRelay(t *testing.T, b bins, dsn string, env []string, flags ...string) *relayProc {
	t.Helper()
	r := &relayProc{b: b, dsn: dsn, addr: "127.0.0.1:0", env: env, flags: flags}
	r.start(t)
	return r
}

func (r *relayProc) start(t *testing.T) {
	t.Helper()
	args := append([]string{"serve", "--listen", r.addr, "--database", r.dsn}, r.flags...)
	r.proc, r.url = start(t, r.b.relay, args, append([]string{"PATH=" + os.Getenv("PATH")}, r.env...), func(line string) (string, bool) {
		_, rest, ok := strings.Cut(line, " listening on ")
		if !ok {
			return "", false
		}
		return strings.Fields(rest)[0], true
	})
	r.addr = strings.TrimPrefix(r.url, "http://")
}

// restart kills the relay and starts it again where it was: the port is
// free again as soon as the process is gone.
func (r *relayProc) restart(t *testing.T) {
	t.Helper()
	r.kill()
	r.start(t)
}

// admin runs a scouts-relay administration command on the relay's
// database.
func (r *relayProc) admin(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(r.b.relay, append(args, "--database", r.dsn)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, r.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scouts-relay %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// newDevice adds a user and a device and writes the device token to a
// 0600 file, as an administrator would hand it over.
func (r *relayProc) newDevice(t *testing.T, email string) string {
	t.Helper()
	r.admin(t, "user", "add", email)
	out := strings.TrimSpace(r.admin(t, "device", "add", email, "--name", "laptop"))
	lines := strings.Split(out, "\n")
	token := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(token, "sdt_") {
		t.Fatalf("device add did not end with the token:\n%s", out)
	}
	path := filepath.Join(t.TempDir(), "device.token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor looks at cond again each time one of sources fires (the
// agent's stream, the fake Gmail, a test's own counter) until it holds or
// ctx ends. With no source it polls every 20 ms: only for what nothing
// announces to the test, each caller saying why.
func waitFor(ctx context.Context, cond func() bool, sources ...wake.Source) error {
	if len(sources) > 0 {
		if err := wake.Until(ctx, cond, sources...); err != nil {
			return fmt.Errorf("gave up waiting: %w", err)
		}
		return nil
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up waiting: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}
