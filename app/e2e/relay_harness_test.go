package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/internal/syncbuf"
)

// relayBinary is the relay binary.
func relayBinary(t testing.TB) string {
	return buildBinary(t, "./relay/cmd/scouts-relay", "scouts-relay")
}

// relayProc is a running scouts-relay serve.
type relayProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	dsn    string
	url    string
	stderr *syncbuf.Buffer
	exited chan struct{}
}

// startRelay starts a relay on dsn. listen may pin the address (to restart
// a relay where desktops expect it); "" picks a free port.
func startRelay(t testing.TB, dsn, listen string, extra ...string) *relayProc {
	t.Helper()
	return startRelayEnv(t, dsn, listen, nil, extra...)
}

// startRelayEnv is startRelay with extra environment variables.
func startRelayEnv(t testing.TB, dsn, listen string, env []string, extra ...string) *relayProc {
	t.Helper()
	return startRelayBin(t, relayBinary(t), dsn, listen, env, extra...)
}

// startRelayBin is startRelayEnv running bin (another build's relay).
func startRelayBin(t testing.TB, bin, dsn, listen string, env []string, extra ...string) *relayProc {
	t.Helper()
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	args := append([]string{"serve", "--listen", listen, "--database", dsn, "--log-level", "debug"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	stdout, _ := cmd.StdoutPipe()
	r := &relayProc{t: t, cmd: cmd, dsn: dsn, stderr: &syncbuf.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() {
		r.kill()
		if t.Failed() {
			t.Logf("relay log (tail):\n%s", tail(r.stderr.String(), 4000))
		}
	})
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), " listening on "); ok {
				urlc <- strings.Fields(rest)[0]
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case r.url = <-urlc:
	case <-r.exited:
		t.Fatalf("relay exited before serving:\n%s", r.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("relay did not start within 60s:\n%s", r.stderr.String())
	}
	return r
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func (r *relayProc) kill() {
	if r.cmd.Process != nil {
		r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.exited
	}
}

// admin runs a scouts-relay admin command against the relay's database.
func relayAdmin(t testing.TB, dsn string, args ...string) string {
	t.Helper()
	cmd := exec.Command(relayBinary(t), append(args, "--database", dsn)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scouts-relay %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// newDevice creates a user (if needed) and a device, and writes the device
// token to a 0600 file, as an administrator would hand it over.
func newDevice(t testing.TB, dsn, email, name string, addUser bool) string {
	t.Helper()
	if addUser {
		relayAdmin(t, dsn, "user", "add", email)
	}
	out := strings.TrimSpace(relayAdmin(t, dsn, "device", "add", email, "--name", name))
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
