package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// emulator is Google's Pub/Sub emulator (from google-cloud-cli), run as a
// process: it POSTs push deliveries and serves pulls like the real thing.
type emulator struct {
	t    testing.TB
	host string // 127.0.0.1:PORT, as PUBSUB_EMULATOR_HOST
}

const emulatorProject = "scouts-e2e"

// emulatorBinary finds cloud-pubsub-emulator next to gcloud.
func emulatorBinary(t testing.TB) string {
	t.Helper()
	gcloud, err := exec.LookPath("gcloud")
	if err == nil {
		if real, err := filepath.EvalSymlinks(gcloud); err == nil {
			bin := filepath.Join(filepath.Dir(real), "..", "platform", "pubsub-emulator", "bin", "cloud-pubsub-emulator")
			if _, err := os.Stat(bin); err == nil {
				if _, err := exec.LookPath("java"); err == nil {
					return bin
				}
			}
		}
	}
	msg := "the Pub/Sub emulator is not installed (Debian package google-cloud-cli with its pubsub emulator, and java)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// startEmulator starts the emulator and waits for its "Server started"
// line. The emulator cannot take port 0, so a port is picked and freed
// just before.
func startEmulator(t testing.TB) *emulator {
	t.Helper()
	bin := emulatorBinary(t)
	port := freePort(t)
	cmd := exec.Command(bin, "--host=127.0.0.1", "--port="+port)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Server started, listening on") {
				close(ready)
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-exited:
		t.Fatal("the Pub/Sub emulator exited before serving")
	case <-time.After(90 * time.Second):
		t.Fatal("the Pub/Sub emulator did not start within 90s")
	}
	return &emulator{t: t, host: "127.0.0.1:" + port}
}

func (e *emulator) put(path, body string) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPut, "http://"+e.host+"/v1/"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("emulator PUT %s: %s %s", path, res.Status, bytes.TrimSpace(b))
	}
}

// topic creates a topic and returns its full name.
func (e *emulator) topic(name string) string {
	full := "projects/" + emulatorProject + "/topics/" + name
	e.put(full, "{}")
	return full
}

// pushSubscription creates a subscription that POSTs to endpoint.
func (e *emulator) pushSubscription(name, topic, endpoint string) string {
	full := "projects/" + emulatorProject + "/subscriptions/" + name
	e.put(full, fmt.Sprintf(`{"topic":%q,"pushConfig":{"pushEndpoint":%q},"ackDeadlineSeconds":10}`, topic, endpoint))
	return full
}

// pullSubscription creates a subscription for pulling.
func (e *emulator) pullSubscription(name, topic string) string {
	full := "projects/" + emulatorProject + "/subscriptions/" + name
	e.put(full, fmt.Sprintf(`{"topic":%q,"ackDeadlineSeconds":10}`, topic))
	return full
}
