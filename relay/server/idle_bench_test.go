package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/internal/promtext"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
)

// TestMain lets the test binary serve as the idle benchmark's floor: run
// with wsFloorEnv set, it is a bare coder/websocket server and nothing
// else.
func TestMain(m *testing.M) {
	if os.Getenv(wsFloorEnv) == "1" {
		serveWSFloor()
		return
	}
	os.Exit(m.Run())
}

const wsFloorEnv = "SCOUTS_BENCH_WS_FLOOR"

// serveWSFloor is the least a WebSocket server can do per connection with
// the library the relay uses: accept, then read until the peer leaves, in
// the handler's goroutine.
func serveWSFloor() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("floor:", err)
		os.Exit(1)
	}
	fmt.Printf("floor listening on http://%s\n", l.Addr())
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			if _, _, err := c.Read(context.Background()); err != nil {
				return
			}
		}
	}))
}

// startServer runs cmd, reads its address from the "listening on" line
// of its standard output, and keeps reading the rest.
func startServer(b *testing.B, cmd *exec.Cmd) string {
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), " listening on "); ok {
			go io.Copy(io.Discard, out)
			return strings.TrimPrefix(strings.Fields(rest)[0], "http://")
		}
	}
	b.Fatalf("%s did not start", cmd.Path)
	return ""
}

// goMemory reads the Go runtime's gauges from a relay's /metrics.
func goMemory(b *testing.B, addr string) map[string]float64 {
	m, err := promtext.Get("http://" + addr + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func rssKiB(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb
		}
	}
	return 0
}

// settledRSS waits until a process's RSS has moved by less than 1 % for
// 3 s (at most 30 s) and returns it: what an idle server keeps.
// Polled: another process's memory settling is announced by nothing.
func settledRSS(pid int) float64 {
	last := rssKiB(pid)
	stable := 0
	for range 60 {
		time.Sleep(500 * time.Millisecond)
		now := rssKiB(pid)
		if d := now - last; d < last/100 && d > -last/100 {
			if stable++; stable == 6 {
				return now
			}
		} else {
			stable = 0
		}
		last = now
	}
	return last
}

// idleDevices connects one WebSocket per token to url and keeps each
// open, idle (answering pings), reconnecting when it drops, until stop
// is closed. With a hello function, each connection says hello and waits
// for welcome first. Every established connection is announced on ready.
func idleDevices(ctx context.Context, wg *sync.WaitGroup, url string, n int, hello func(i int) []byte, ready chan<- struct{}, stop <-chan struct{}) {
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				c, _, err := websocket.Dial(dctx, url, nil)
				cancel()
				if err != nil {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond): // the server is restarting
					}
					continue
				}
				ok := true
				if hello != nil {
					c.Write(ctx, websocket.MessageText, hello(i))
					_, _, err := c.Read(ctx)
					ok = err == nil
				}
				if ok {
					ready <- struct{}{}
				}
				for {
					_, m, err := c.Read(ctx)
					if err != nil {
						break
					}
					if strings.Contains(string(m), `"ping"`) {
						pong, _ := protocol.Encode(protocol.TypePong, "", 0, protocol.Pong{})
						c.Write(ctx, websocket.MessageText, pong)
					}
				}
				c.CloseNow()
			}
		}()
	}
}

// BenchmarkIdle10k runs the real relay binary (SQLite) and connects 10 000
// devices to it (100 users × 100 devices) from this process: the relay's
// RSS per idle session, beside a bare coder/websocket server measured the
// same way in the same run (this test binary re-run as that server), and
// the time for every device to reconnect and resume after the relay
// restarts. RSS is read once it has settled.
// Run it alone: go test -run '^$' -bench Idle10k -benchtime 1x ./relay/server
func BenchmarkIdle10k(b *testing.B) {
	const users, perUser = 100, 100
	dir := b.TempDir()
	bin := filepath.Join(dir, "scouts-relay")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/scouts-relay").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	dsn := filepath.Join(dir, "relay.db")
	ctx := context.Background()
	db, err := relaydb.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	var tokens []string
	for u := range users {
		email := fmt.Sprintf("u%d@example.com", u)
		db.AddUser(ctx, email)
		for d := range perUser {
			_, tok, err := db.AddDevice(ctx, email, fmt.Sprint("d", d))
			if err != nil {
				b.Fatal(err)
			}
			tokens = append(tokens, tok)
		}
	}
	db.Close()
	hellos := make([][]byte, len(tokens))
	for i, tok := range tokens {
		keys, _ := client.DeviceKeys(tok)
		hellos[i], _ = protocol.Encode(protocol.TypeHello, "", 0, protocol.Hello{Token: tok, Protocol: 1, PublicKey: keys.Public[:]})
	}
	n := len(tokens)
	waitAll := func(ready chan struct{}) {
		for range n {
			<-ready
		}
	}

	// The floor: the same clients against a bare server.
	floor := exec.Command(os.Args[0])
	floor.Env = append(os.Environ(), wsFloorEnv+"=1")
	faddr := startServer(b, floor)
	fidle := settledRSS(floor.Process.Pid)
	var fwg sync.WaitGroup
	fready, fstop := make(chan struct{}, n), make(chan struct{})
	idleDevices(ctx, &fwg, "ws://"+faddr+"/", n, nil, fready, fstop)
	waitAll(fready)
	floorPer := (settledRSS(floor.Process.Pid) - fidle) / float64(n)
	close(fstop)
	floor.Process.Kill()
	floor.Wait()
	fwg.Wait()

	relayCmd := func(addr string) *exec.Cmd {
		return exec.Command(bin, "serve", "--listen", addr, "--database", dsn, "--log-level", "warn")
	}
	cmd := relayCmd("127.0.0.1:0")
	addr := startServer(b, cmd)
	idle := settledRSS(cmd.Process.Pid)
	idleMem := goMemory(b, addr)
	var wg sync.WaitGroup
	ready, stop := make(chan struct{}, n), make(chan struct{})
	b.ResetTimer()
	t0 := time.Now()
	idleDevices(ctx, &wg, "ws://"+addr+"/api/v1/device", n, func(i int) []byte { return hellos[i] }, ready, stop)
	waitAll(ready)
	connectTime := time.Since(t0)
	perDevice := (settledRSS(cmd.Process.Pid) - idle) / float64(n)
	loadedMem := goMemory(b, addr)
	// An idle relay collects at least every two minutes (the runtime's
	// forced collection) and then returns what it freed to the system:
	// what devices cost once the connection storm is over.
	gcs := loadedMem["go_gc_duration_seconds_count"]
	// Polled: the relay's runtime collects on its own clock and tells no one.
	for goMemory(b, addr)["go_gc_duration_seconds_count"] == gcs {
		time.Sleep(time.Second)
	}
	laterPerDevice := (settledRSS(cmd.Process.Pid) - idle) / float64(n)
	laterMem := goMemory(b, addr)

	// Restart: every device reconnects and resumes.
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	t1 := time.Now()
	cmd = relayCmd(addr)
	startServer(b, cmd)
	waitAll(ready)
	reconnect := time.Since(t1)
	b.StopTimer()
	b.ReportMetric(floorPer, "floor-KiB/idle-conn")
	b.ReportMetric(perDevice, "KiB/idle-device")
	b.ReportMetric(perDevice/floorPer, "device/floor")
	b.ReportMetric(laterPerDevice, "KiB/idle-device-after-gc")
	b.ReportMetric((laterMem["go_memstats_heap_inuse_bytes"]-idleMem["go_memstats_heap_inuse_bytes"])/float64(n)/1024, "heap-after-gc-KiB/device")
	// Where it goes, from the relay's own metrics.
	for _, m := range []struct{ metric, unit string }{
		{"go_memstats_heap_inuse_bytes", "heap-KiB/device"},
		{"go_memstats_stack_inuse_bytes", "stack-KiB/device"},
		{"go_memstats_heap_idle_bytes", "heap-idle-KiB/device"},
		{"go_memstats_heap_released_bytes", "heap-released-KiB/device"},
		{"go_goroutines", "goroutines/device"},
	} {
		d := (loadedMem[m.metric] - idleMem[m.metric]) / float64(n)
		if strings.HasSuffix(m.metric, "_bytes") {
			d /= 1024
		}
		b.ReportMetric(d, m.unit)
	}
	b.ReportMetric(connectTime.Seconds(), "s-first-connect-10k")
	b.ReportMetric(reconnect.Seconds(), "s-reconnect-10k")
	close(stop)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	wg.Wait()
}
