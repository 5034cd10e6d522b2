package e2e

import (
	"context"
	"database/sql"
	"fmt"
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

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/internal/promtext"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
	"github.com/scouts-hq/scouts/store/storetest"
)

// The drain between two processes: the real relay (SQLite or PostgreSQL)
// holds a backlog of sealed webhook items queued while the real agent was
// offline; the agent starts and turns them into suggestions.
//
//	go test -run '^$' -bench DrainProcesses -benchtime 3x ./app/e2e
//
// Each iteration is a fresh relay database and agent data directory. The
// floor, measured in the same iteration, is drainBacklog rows of a
// suggestion's size inserted into a fresh database of the agent's store,
// 256 per transaction (BenchmarkFloorBatchedInserts in app/core).
//
// Environment:
//   - SCOUTS_BENCH_BEFORE=DIR also runs DIR/scouts and DIR/scouts-relay
//     (another build: the tree before a change), alternating with this
//     tree's in every iteration, so that the machine's load falls on both
//     alike; the paired ratio is reported.
//   - SCOUTS_BENCH_PERF=DIR records a perf profile of the relay and the
//     agent during each drain (DIR/<dialect>-<build>-<n>-{relay,agent}.data).
//   - SCOUTS_BENCH_DRAIN_ITEMS overrides the backlog (default 5 000).
//   - SCOUTS_BENCH_RELAY_ARGS adds flags to scouts-relay serve ("--window 64").
const drainBacklog = 5000

// drainBuild is a pair of binaries to measure.
type drainBuild struct {
	name          string
	scouts, relay string
}

// drainRun is what one drain measured.
type drainRun struct {
	rate      float64 // items/s from the agent's start to its last suggestion
	drainRate float64 // items/s from the agent's API answering to its last suggestion
	startup   time.Duration
	perAck    float64 // items per acknowledgement frame, from the relay's metrics
	agentCPU  float64 // µs of the agent's CPU per item (start-up included)
	relayCPU  float64 // µs of the relay's CPU per item during the drain
	// pgCPU is the PostgreSQL server's CPU per item during the drain (all
	// its processes: other users of the server count too); 0 on SQLite.
	pgCPU      float64
	loadBefore float64 // the machine's load average (1 min) at the start
}

func BenchmarkDrainProcesses(b *testing.B) {
	items := drainBacklog
	if v := os.Getenv("SCOUTS_BENCH_DRAIN_ITEMS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("SCOUTS_BENCH_DRAIN_ITEMS=%q: want a positive count", v)
		}
		items = n
	}
	builds := []drainBuild{{name: "now", scouts: scoutsBinary(b), relay: buildBinary(b, "./relay/cmd/scouts-relay", "scouts-relay")}}
	if dir := os.Getenv("SCOUTS_BENCH_BEFORE"); dir != "" {
		before := drainBuild{name: "before", scouts: filepath.Join(dir, "scouts"), relay: filepath.Join(dir, "scouts-relay")}
		for _, p := range []string{before.scouts, before.relay} {
			if _, err := os.Stat(p); err != nil {
				b.Fatalf("SCOUTS_BENCH_BEFORE: %v", err)
			}
		}
		builds = append(builds, before)
	}
	for _, dialect := range []string{"sqlite", "postgres"} {
		b.Run(dialect, func(b *testing.B) {
			if dialect == "postgres" {
				storetest.PostgresDSN(b) // skips without a server
			}
			runs := map[string][]drainRun{}
			var floors []float64
			for i := range b.N {
				floors = append(floors, floorBatchedInserts(b, items))
				order := slices.Clone(builds)
				if i%2 == 1 {
					slices.Reverse(order)
				}
				for _, bl := range order {
					r := drainOnce(b, bl, dialect, items, i)
					runs[bl.name] = append(runs[bl.name], r)
					// Every run, on stderr: a benchmark's log keeps only its
					// last lines.
					fmt.Fprintf(os.Stderr, "%s %s run %d: %.0f items/s (drain %.0f/s after a %s start), %.1f items/ack, agent %.0f µs/item, relay %.0f µs/item, postgres %.0f µs/item, load %.1f; floor %.0f/s\n",
						dialect, bl.name, i, r.rate, r.drainRate, r.startup.Round(time.Millisecond), r.perAck, r.agentCPU, r.relayCPU, r.pgCPU, r.loadBefore, floors[i])
				}
			}
			floor := median(floors)
			b.ReportMetric(floor, "floor-items/s")
			for _, bl := range builds {
				rs := runs[bl.name]
				pick := func(f func(drainRun) float64) float64 {
					var v []float64
					for _, r := range rs {
						v = append(v, f(r))
					}
					return median(v)
				}
				prefix := ""
				if bl.name != "now" {
					prefix = bl.name + "-"
				}
				rate := pick(func(r drainRun) float64 { return r.rate })
				b.ReportMetric(rate, prefix+"items/s")
				b.ReportMetric(rate/floor, prefix+"×floor")
				b.ReportMetric(pick(func(r drainRun) float64 { return r.drainRate }), prefix+"drain-items/s")
				b.ReportMetric(pick(func(r drainRun) float64 { return r.perAck }), prefix+"items/ack")
				b.ReportMetric(pick(func(r drainRun) float64 { return r.agentCPU }), prefix+"agent-µs/item")
				b.ReportMetric(pick(func(r drainRun) float64 { return r.relayCPU }), prefix+"relay-µs/item")
				if dialect == "postgres" {
					b.ReportMetric(pick(func(r drainRun) float64 { return r.pgCPU }), prefix+"postgres-µs/item")
				}
			}
			if before, ok := runs["before"]; ok {
				var ratios []float64
				for i, r := range runs["now"] {
					ratios = append(ratios, r.rate/before[i].rate)
				}
				b.ReportMetric(median(ratios), "now/before")
			}
		})
	}
}

// drainOnce sets up a relay with one user, device and webhook scout,
// queues items while the agent is stopped, then starts the agent and
// waits until every item is a suggestion.
func drainOnce(b *testing.B, bl drainBuild, dialect string, items, iter int) drainRun {
	ctx := context.Background()
	dir := b.TempDir()
	dsn := filepath.Join(dir, "relay.db")
	if dialect == "postgres" {
		dsn = storetest.PostgresDSN(b)
	}
	relay := startRelayBin(b, bl.relay, dsn, "", nil, append([]string{"--log-level", "warn"}, strings.Fields(os.Getenv("SCOUTS_BENCH_RELAY_ARGS"))...)...)
	defer relay.kill()
	tokenFile := newDeviceWith(b, bl.relay, dsn, "bench@example.com", "laptop")
	home := filepath.Join(dir, "home")
	data := filepath.Join(home, "data")
	args := []string{"--relay", relay.url, "--device-token-file", tokenFile, "--log-level", "info"}

	// A first run registers the webhook scout and the device's key.
	a := startAgentArgv(b, []string{bl.scouts}, data, home, nil, args...)
	stream := a.events(b)
	waitState(b, stream, "online", online)
	hook, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "webhook", Name: "CI"})
	if err != nil {
		b.Fatal(err)
	}
	waitSynced(b, stream, "scout registered")
	a.stop()

	postBacklog(b, hook.HookURL, hook.HookToken, items)

	perf := os.Getenv("SCOUTS_BENCH_PERF")
	stopPerf := func() {}
	if perf != "" {
		stopPerf = recordPerf(b, relay.cmd.Process.Pid, filepath.Join(perf, fmt.Sprintf("%s-%s-%d-relay.data", dialect, bl.name, iter)))
	}
	m0 := relayMetrics(b, relay.url)
	relayCPU0 := procCPU(relay.cmd.Process.Pid)
	pgCPU0 := postgresCPU(dialect)
	load := loadAverage()
	start := time.Now()
	a = startAgentArgv(b, []string{bl.scouts}, data, home, nil, args...)
	defer a.kill()
	started := time.Since(start)
	if perf != "" {
		stopAgent := recordPerf(b, a.cmd.Process.Pid, filepath.Join(perf, fmt.Sprintf("%s-%s-%d-agent.data", dialect, bl.name, iter)))
		stopRelay := stopPerf
		stopPerf = func() { stopAgent(); stopRelay() }
	}
	waitPending(b, a, items)
	took := time.Since(start)
	agentCPU := procCPU(a.cmd.Process.Pid)
	relayCPU := procCPU(relay.cmd.Process.Pid) - relayCPU0
	pgCPU := postgresCPU(dialect) - pgCPU0
	m1 := relayMetrics(b, relay.url)
	stopPerf()
	// The last acknowledgement may still be on its way: the ratio is of
	// what the relay had received.
	ackFrames := m1[`scouts_relay_frames_received_total{type="scout_proposal_ack"}`] - m0[`scouts_relay_frames_received_total{type="scout_proposal_ack"}`]
	acked := m1["scouts_relay_acks_total"] - m0["scouts_relay_acks_total"]
	a.stop()
	return drainRun{
		rate: float64(items) / took.Seconds(), drainRate: float64(items) / (took - started).Seconds(), startup: started,
		perAck: acked / max(ackFrames, 1), agentCPU: float64(agentCPU.Microseconds()) / float64(items),
		relayCPU: float64(relayCPU.Microseconds()) / float64(items), pgCPU: float64(pgCPU.Microseconds()) / float64(items), loadBefore: load,
	}
}

// newDeviceWith is newDevice with another build's relay binary.
func newDeviceWith(b *testing.B, bin, dsn, email, name string) string {
	admin := func(args ...string) string {
		cmd := exec.Command(bin, append(args, "--database", dsn)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("scouts-relay %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	admin("user", "add", email)
	lines := strings.Split(strings.TrimSpace(admin("device", "add", email, "--name", name)), "\n")
	token := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(token, "sdt_") {
		b.Fatalf("device add did not end with the token: %q", token)
	}
	path := filepath.Join(b.TempDir(), "device.token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// postBacklog posts n webhook items from 16 callers, each accepted.
func postBacklog(b *testing.B, hookURL, token string, n int) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				it := hookItem{Title: fmt.Sprintf("Build %d failed on main", i), URL: fmt.Sprintf("https://ci.example.com/builds/%d", i),
					Body: strings.Repeat("The integration suite failed at step deploy. ", 6)}
				if code, out := post(b, hookURL, token, fmt.Sprint("item-", i), it); code != http.StatusAccepted {
					b.Errorf("post %d: %d %v", i, code, out)
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}

// waitPending waits until the agent has n pending suggestions, woken by
// its event stream: each suggestion.created moves the count on, and the
// count is read from the API when the events say it may be there (events
// that came between the stream's start and the first count are counted
// twice, so the API has the last word).
func waitPending(b *testing.B, a *agentProc, n int) {
	ctx := context.Background()
	stream := a.events(b)
	count := func() int {
		st, err := a.client.Status(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return st.Suggestions[string(scouts.StatusPending)]
	}
	seen := count()
	deadline := time.After(5 * time.Minute)
	for seen < n {
		select {
		case ev, ok := <-stream:
			if !ok {
				b.Fatalf("the agent's stream ended at about %d of %d suggestions", seen, n)
			}
			if ev.Type != scouts.EventSuggestionCreated {
				continue
			}
			if seen++; seen >= n {
				seen = count()
			}
		case <-deadline:
			b.Fatalf("%d of %d suggestions after 5 minutes", count(), n)
		}
	}
	if seen != n {
		b.Fatalf("%d pending suggestions, want %d", seen, n)
	}
}

// relayMetrics reads the relay's counters.
func relayMetrics(b *testing.B, url string) map[string]float64 {
	m, err := promtext.Get(url + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// procCPU is a process's user + system CPU time so far.
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name (which may hold spaces).
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// postgresCPU is the CPU time of every process of the machine named
// postgres (the server, its backends and workers), for dialect postgres.
func postgresCPU(dialect string) time.Duration {
	if dialect != "postgres" {
		return 0
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/comm")
	var total time.Duration
	for _, comm := range procs {
		name, err := os.ReadFile(comm)
		if err != nil || strings.TrimSpace(string(name)) != "postgres" {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(comm)))
		total += procCPU(pid)
	}
	return total
}

func loadAverage() float64 {
	raw, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// recordPerf samples a process's stacks with perf until the returned
// function is called.
func recordPerf(b *testing.B, pid int, out string) func() {
	cmd := exec.Command("perf", "record", "-F", "499", "-g", "-p", strconv.Itoa(pid), "-o", out)
	if err := cmd.Start(); err != nil {
		b.Fatalf("perf: %v", err)
	}
	return func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}
}

// floorBatchedInserts inserts n rows of a suggestion's size into a fresh
// database of the agent's store, 256 per transaction with one prepared
// statement, and returns rows/s.
func floorBatchedInserts(b *testing.B, n int) float64 {
	const batch = 256
	ctx := context.Background()
	db, err := store.OpenSQLite(ctx, filepath.Join(b.TempDir(), "floor.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Writer().Exec(`CREATE TABLE t (id TEXT PRIMARY KEY, scout TEXT, ref TEXT, body TEXT, at INTEGER, UNIQUE (scout, ref))`); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("x", 300)
	start := time.Now()
	for i := 0; i < n; i += batch {
		err := db.Tx(ctx, func(tx *sql.Tx) error {
			st, err := tx.Prepare(`INSERT INTO t (id, scout, ref, body, at) VALUES (?, ?, ?, ?, ?)`)
			if err != nil {
				return err
			}
			defer st.Close()
			for j := i; j < min(i+batch, n); j++ {
				if _, err := st.Exec(scouts.NewID("sg"), "sc_1", fmt.Sprint("ref", j), body, j); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
