// Package e2e holds the end-to-end tests: they build the real scouts
// binary, run it as a person would and drive it through its local API, its
// event stream and its CLI.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
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

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/internal/syncbuf"
	"github.com/scouts-hq/scouts/internal/wake"
)

// builds holds the binaries built for this test process, by package.
var builds sync.Map // package path → func() (string, error)

// buildBinary builds the main package pkg (relative to the repository root)
// once per test process and returns the binary's path.
func buildBinary(t testing.TB, pkg, name string) string {
	t.Helper()
	f, _ := builds.LoadOrStore(pkg, sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "scouts-e2e-bin-")
		if err != nil {
			return "", err
		}
		bin := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
		return bin, nil
	}))
	bin, err := f.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// scoutsBinary is the desktop binary.
func scoutsBinary(t testing.TB) string { return buildBinary(t, ".", "scouts") }

// agentProc is a running `scouts agent`.
type agentProc struct {
	t       testing.TB
	cmd     *exec.Cmd
	dataDir string
	baseURL string
	client  *localclient.Client
	stderr  *syncbuf.Buffer
	exited  chan struct{}
	// changes fires after each event of the agent's stream, once
	// watching starts (changed).
	changes  wake.Wake
	watching sync.Once
}

// env returns a minimal environment with HOME pointing at home, so nothing
// the agent does reaches the real user's files.
func testEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}
}

// startAgent starts the agent on dataDir and waits until its API answers
// (it prints the URL only once it serves).
func startAgent(t testing.TB, dataDir, home string, extra ...string) *agentProc {
	t.Helper()
	return startAgentEnv(t, dataDir, home, nil, extra...)
}

// startAgentEnv is startAgent with extra environment variables.
func startAgentEnv(t testing.TB, dataDir, home string, env []string, extra ...string) *agentProc {
	t.Helper()
	return startAgentVia(t, nil, dataDir, home, env, extra...)
}

// startAgentVia is startAgentEnv with the agent run by prefix, a command
// that runs the command after it (a shell setting a limit, then exec).
func startAgentVia(t testing.TB, prefix []string, dataDir, home string, env []string, extra ...string) *agentProc {
	t.Helper()
	argv := append(append([]string{}, prefix...), scoutsBinary(t))
	return startAgentArgv(t, argv, dataDir, home, env, extra...)
}

// startAgentArgv is startAgentVia with the command line's start given
// whole: the scouts binary to run (another build's), after any prefix.
func startAgentArgv(t testing.TB, argv []string, dataDir, home string, env []string, extra ...string) *agentProc {
	t.Helper()
	argv = append(append(argv, "agent", "--data", dataDir, "--listen", "127.0.0.1:0", "--inbox", "", "--log-level", "debug"), extra...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(testEnv(home), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &agentProc{t: t, cmd: cmd, dataDir: dataDir, stderr: &syncbuf.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = a.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() {
		a.kill()
		if t.Failed() {
			t.Logf("agent log:\n%s", a.stderr.String())
		}
	})
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "Local API: "); ok {
				urlc <- strings.TrimSuffix(strings.Fields(u)[0], "/api/v1/")
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case a.baseURL = <-urlc:
	case <-a.exited:
		t.Fatalf("agent exited before serving:\n%s", a.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("agent did not print its URL within 60s:\n%s", a.stderr.String())
	}
	tok, err := os.ReadFile(filepath.Join(dataDir, "local-api.token"))
	if err != nil {
		t.Fatal(err)
	}
	a.client = localclient.NewTCP(a.baseURL, strings.TrimSpace(string(tok)))
	return a
}

// kill ends the agent with SIGKILL: no chance to clean up, as in a crash.
func (a *agentProc) kill() {
	if a.cmd.Process != nil {
		a.cmd.Process.Signal(syscall.SIGKILL)
		<-a.exited
	}
}

// stop ends the agent gracefully and checks it exits cleanly.
func (a *agentProc) stop() {
	a.t.Helper()
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		a.t.Fatal("agent did not exit within 30s of SIGTERM")
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		a.t.Fatalf("agent exited with %d:\n%s", code, a.stderr.String())
	}
}

// events reads the stream into a channel until the test ends or the agent
// goes. The agent cuts off a subscriber that falls behind (a loaded
// machine); like the app's own clients, events then resumes after the last
// event it read, and fails the test if the agent no longer has what it
// missed (a "reset"), so that a test never waits for an event it lost.
func (a *agentProc) events(t testing.TB) <-chan apitype.StreamEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := a.client.Watch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan apitype.StreamEvent, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		for {
			ev, err := w.Next()
			if err == nil {
				if ev.Type == apitype.StreamReset {
					t.Errorf("the agent's stream lost events after id %d: %s", w.LastID(), ev.Data)
					return
				}
				select {
				case ch <- ev:
				case <-ctx.Done():
					return
				}
				continue
			}
			w.Close()
			select {
			case <-a.exited:
				return
			default:
			}
			if ctx.Err() != nil {
				return
			}
			// Once: an agent that is going refuses it, one that cut a slow
			// reader off replays what it missed.
			if w, err = a.client.Watch(ctx, w.LastID()); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

// collect waits for n events of type typ, failing after the deadline.
func collect[T any](t *testing.T, ch <-chan apitype.StreamEvent, typ string, n int) []T {
	t.Helper()
	return collectOr[T](t, ch, typ, n, nil)
}

// collectOr is collect, saying more when the deadline passes: what
// missing returns, given what arrived (which items, where the API has
// them), so that a slow event and a lost item read differently.
func collectOr[T any](t *testing.T, ch <-chan apitype.StreamEvent, typ string, n int, missing func([]T) string) []T {
	t.Helper()
	var out []T
	deadline := time.After(30 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended after %d of %d %s events", len(out), n, typ)
			}
			if ev.Type != typ {
				continue
			}
			var v T
			if err := json.Unmarshal(ev.Data, &v); err != nil {
				t.Fatalf("decode %s: %v", typ, err)
			}
			out = append(out, v)
		case <-deadline:
			more := ""
			if missing != nil {
				more = ": " + missing(out)
			}
			t.Fatalf("got %d of %d %s events within 30s%s", len(out), n, typ, more)
		}
	}
	return out
}

// runCLI runs a scouts subcommand against the agent of dataDir.
func runCLI(t *testing.T, home, dataDir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(scoutsBinary(t), append(args, "--data", dataDir)...)
	cmd.Env = testEnv(home)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}
