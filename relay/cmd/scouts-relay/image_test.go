//go:build linux

package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
)

// The relay's user in the image (build/relay/Dockerfile).
const imageUID = 65532

// podman runs podman commands with the options this machine needs.
type podman struct {
	t    *testing.T
	bin  string
	glob []string // global options
}

func (p *podman) cmd(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, p.bin, append(slices.Clone(p.glob), args...)...)
}

// run runs a podman command and returns its standard output.
func (p *podman) run(ctx context.Context, args ...string) (string, error) {
	var out, errb bytes.Buffer
	c := p.cmd(ctx, args...)
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return out.String(), errors.New("podman " + strings.Join(args, " ") + ": " + err.Error() + ": " + strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (p *podman) must(ctx context.Context, args ...string) string {
	p.t.Helper()
	out, err := p.run(ctx, args...)
	if err != nil {
		p.t.Fatal(err)
	}
	return out
}

// unavailable fails in CI, where build/deps.sh installs podman, and skips
// elsewhere.
func unavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// The relay's container image, built as docs/deploy.md says
// (build/relay/image.sh: no base image pulled) and run as documented with a
// named volume on /data: the non-root relay creates its database in the
// volume, /readyz answers, the admin commands work through podman exec,
// and a webhook posted to the container reaches a real device client.
func TestContainerImageServesAWebhookToADevice(t *testing.T) {
	bin, err := exec.LookPath("podman")
	if err != nil {
		unavailable(t, "podman is not installed (build/deps.sh test installs it): the relay's container image is not tested")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pm := &podman{t: t, bin: bin}
	// crun, podman's default runtime on Debian, refuses hosts with a
	// hybrid cgroup hierarchy (these machines): runc runs there and
	// everywhere else.
	if _, err := exec.LookPath("runc"); err == nil {
		pm.glob = append(pm.glob, "--runtime", "runc")
	}
	suffix := randomHex(t)
	tag := "localhost/scouts-relay-test:" + suffix
	name, volume := "scouts-relay-test-"+suffix, "scouts-relay-test-data-"+suffix

	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	build := exec.CommandContext(ctx, filepath.Join(root, "build", "relay", "image.sh"), tag)
	build.Env = append(os.Environ(), "VERSION=image-test", "CONTAINER="+bin)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build/relay/image.sh: %v\n%s", err, out)
	}
	t.Cleanup(func() { pm.run(context.Background(), "rmi", "-f", tag) })

	checkImageLayout(t, ctx, pm, tag)

	// Limits above the caller's hard limit cannot be set without
	// CAP_SYS_RESOURCE, which these machines' root lacks; podman's
	// defaults (nofile 1048576) are above it.
	var nofile unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &nofile); err != nil {
		t.Fatal(err)
	}
	limits := []string{"--ulimit", "nofile=" + strconv.FormatUint(nofile.Cur, 10) + ":" + strconv.FormatUint(nofile.Max, 10), "--ulimit", "nproc=4096:4096"}
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := pm.run(context.Background(), "logs", name)
			t.Logf("relay container's log:\n%s", logs)
		}
		pm.run(context.Background(), "rm", "-f", "-t", "0", name)
		pm.run(context.Background(), "volume", "rm", "-f", volume)
	})
	args := append([]string{"run", "-d", "--name", name, "-p", "127.0.0.1::8080", "-v", volume + ":/data"}, limits...)
	if _, err := pm.run(ctx, append(args, tag)...); err != nil {
		unavailable(t, "the container engine cannot run a container on this machine, so only the image's layout was tested: "+err.Error())
	}
	waitListening(t, ctx, pm, name)
	addr := strings.TrimSpace(pm.must(ctx, "port", name, "8080/tcp"))
	base := "http://" + addr

	res, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	ready, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.TrimSpace(string(ready)) != "ready" {
		t.Fatalf("/readyz: %d %q", res.StatusCode, ready)
	}
	// The database is in the named volume, created by the relay's user.
	mount := strings.TrimSpace(pm.must(ctx, "volume", "inspect", volume, "--format", "{{.Mountpoint}}"))
	fi, err := os.Stat(filepath.Join(mount, "relay.db"))
	if err != nil {
		t.Fatalf("no database in the volume: %v", err)
	}
	if os.Geteuid() == 0 { // rootless podman maps the relay's user to a subordinate id
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != imageUID {
			t.Errorf("the database in the volume belongs to uid %d, want %d", st.Uid, imageUID)
		}
	}

	// An account and a device, through the admin commands in the container.
	pm.must(ctx, "exec", name, "scouts-relay", "user", "add", "ann@example.com")
	out := strings.TrimSpace(pm.must(ctx, "exec", name, "scouts-relay", "device", "add", "ann@example.com", "--name", "laptop"))
	token := out[strings.LastIndex(out, "\n")+1:]
	if !strings.HasPrefix(token, "sdt_") {
		t.Fatalf("device add did not end with the token:\n%s", out)
	}

	// The device registers a webhook scout as the desktop does, through
	// its outbox, and receives what is posted to the hook.
	const hookToken = "image-hook-token"
	dev := newDevice(client.Op{Key: "op-register", Type: protocol.TypeScoutRegister, Data: protocol.ScoutConfig{
		ScoutID: "sc_image", Kind: "webhook", Name: "image", Enabled: true, HookTokenHash: relaydb.HashToken(hookToken)}})
	c, err := client.New(client.Config{URL: base, Token: token, Handler: dev})
	if err != nil {
		t.Fatal(err)
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	go c.Run(cctx)
	select {
	case r := <-dev.done:
		if !r.OK {
			t.Fatalf("registering the webhook scout: %+v", r)
		}
	case <-ctx.Done():
		t.Fatal("the device's scout was never registered")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/hooks/sc_image",
		strings.NewReader(`{"title":"Deploy finished","body":"through the container"}`))
	req.Header.Set("Authorization", "Bearer "+hookToken)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("webhook: %d", res.StatusCode)
	}
	select {
	case it := <-dev.items:
		if it.Payload == nil || it.Payload.Title != "Deploy finished" || it.Payload.Body != "through the container" {
			t.Fatalf("the device received %+v (open error %v)", it.Payload, it.OpenError)
		}
	case <-ctx.Done():
		t.Fatal("the webhook's item never reached the device")
	}
}

// checkImageLayout reads the image's configuration and its file system
// (exported from a container created, not run, from it).
func checkImageLayout(t *testing.T, ctx context.Context, pm *podman, tag string) {
	t.Helper()
	var inspect []struct {
		Config struct {
			User       string
			Env        []string
			Entrypoint []string
			Volumes    map[string]struct{}
		}
	}
	if err := json.Unmarshal([]byte(pm.must(ctx, "image", "inspect", tag)), &inspect); err != nil || len(inspect) != 1 {
		t.Fatalf("image inspect: %v", err)
	}
	cfg := inspect[0].Config
	if cfg.User != "65532:65532" {
		t.Errorf("the image runs as %q, want 65532:65532 (not root)", cfg.User)
	}
	if _, ok := cfg.Volumes["/data"]; !ok {
		t.Errorf("the image's volumes are %v, want /data", cfg.Volumes)
	}
	if !slices.Contains(cfg.Env, "SCOUTS_RELAY_DATABASE=/data/relay.db") {
		t.Errorf("the image's environment %v does not put the database in /data", cfg.Env)
	}
	if !slices.Equal(cfg.Entrypoint, []string{"/usr/local/bin/scouts-relay"}) {
		t.Errorf("entrypoint %v", cfg.Entrypoint)
	}

	id := strings.TrimSpace(pm.must(ctx, "create", tag))
	defer pm.run(context.Background(), "rm", "-f", "-v", id) // -v: its anonymous /data volume too
	export := pm.cmd(ctx, "export", id)
	r, err := export.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := export.Start(); err != nil {
		t.Fatal(err)
	}
	files := map[string]*tar.Header{}
	var certs []byte
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("podman export: %v", err)
		}
		name := "/" + strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")
		files[name] = h
		if name == "/etc/ssl/certs/ca-certificates.crt" {
			certs, _ = io.ReadAll(tr)
		}
	}
	if err := export.Wait(); err != nil {
		t.Fatalf("podman export: %v", err)
	}
	for _, dir := range []string{"/data", "/tmp"} {
		h := files[dir]
		if h == nil || h.Typeflag != tar.TypeDir || h.Uid != imageUID || h.Gid != imageUID || h.Mode&0o700 != 0o700 {
			t.Errorf("%s in the image: %+v; want a directory the relay's user (%d) owns", dir, h, imageUID)
		}
	}
	if h := files["/usr/local/bin/scouts-relay"]; h == nil || h.Typeflag != tar.TypeReg || h.Mode&0o111 == 0 {
		t.Errorf("the binary in the image: %+v", h)
	}
	host, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		t.Fatalf("this machine's CA certificates: %v", err)
	}
	if len(certs) == 0 || !bytes.Equal(certs, host) {
		t.Errorf("the image's CA certificates (%d bytes) are not this machine's (%d bytes)", len(certs), len(host))
	}
	var names []string
	for n, h := range files {
		if h.Typeflag == tar.TypeReg {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	if want := []string{"/etc/ssl/certs/ca-certificates.crt", "/usr/local/bin/scouts-relay"}; !slices.Equal(names, want) {
		t.Errorf("the image's files are %v, want only %v", names, want)
	}
}

// waitListening follows the container's log until the relay says it
// listens; the log ends if the container exits first.
func waitListening(t *testing.T, ctx context.Context, pm *podman, name string) {
	t.Helper()
	follow := pm.cmd(ctx, "logs", "-f", name)
	out, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { follow.Process.Kill(); follow.Wait() }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(sc.Text(), " listening on ") {
			return
		}
	}
	logs, _ := pm.run(context.Background(), "logs", name)
	t.Fatalf("the relay in the container never listened (%v):\n%s", ctx.Err(), logs)
}

// device is a desktop as the relay client sees it: one operation in its
// outbox, items committed in memory.
type device struct {
	mu    sync.Mutex
	ops   []client.Op
	last  int64
	done  chan protocol.ConfigResult
	items chan client.Item
}

func newDevice(ops ...client.Op) *device {
	return &device{ops: ops, done: make(chan protocol.ConfigResult, len(ops)), items: make(chan client.Item, 16)}
}

func (d *device) LastAcked(context.Context) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last, nil
}

func (d *device) Commit(_ context.Context, items []client.Item) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, it := range items {
		d.last = max(d.last, it.Seq)
		select {
		case d.items <- it:
		default:
		}
	}
	return nil
}

func (d *device) PendingOps(context.Context) ([]client.Op, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.ops), nil
}

func (d *device) OpDone(_ context.Context, key string, res protocol.ConfigResult) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	i := slices.IndexFunc(d.ops, func(o client.Op) bool { return o.Key == key })
	if i < 0 {
		return nil
	}
	d.ops = slices.Delete(d.ops, i, i+1)
	d.done <- res
	return nil
}

func (d *device) ScoutStatus(context.Context, protocol.ScoutStatus)       {}
func (d *device) MailboxChanged(context.Context, protocol.MailboxChanged) {}
func (d *device) State(client.State)                                      {}

func randomHex(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
