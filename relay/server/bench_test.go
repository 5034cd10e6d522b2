package server_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/store"
)

// benchHandler is a desktop that commits each batch durably to a SQLite
// table (as the real desktop does) and reports what it committed.
type benchHandler struct {
	db        *store.DB
	committed chan []int64
	last      atomic.Int64
	online    chan struct{}
	once      sync.Once
}

func newBenchHandler(b *testing.B) *benchHandler {
	db, err := store.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "desk.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.Writer().Exec(`CREATE TABLE got (seq INTEGER PRIMARY KEY)`)
	return &benchHandler{db: db, committed: make(chan []int64, 1<<16), online: make(chan struct{})}
}

func (h *benchHandler) LastAcked(context.Context) (int64, error) { return h.last.Load(), nil }
func (h *benchHandler) Commit(ctx context.Context, items []client.Item) error {
	seqs := make([]int64, len(items))
	err := h.db.Tx(ctx, func(tx *sql.Tx) error {
		for i, it := range items {
			seqs[i] = it.Seq
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO got (seq) VALUES (?)`, it.Seq); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		h.last.Store(seqs[len(seqs)-1])
		h.committed <- seqs
	}
	return err
}
func (h *benchHandler) PendingOps(context.Context) ([]client.Op, error)             { return nil, nil }
func (h *benchHandler) OpDone(context.Context, string, protocol.ConfigResult) error { return nil }
func (h *benchHandler) ScoutStatus(context.Context, protocol.ScoutStatus)           {}
func (h *benchHandler) MailboxChanged(context.Context, protocol.MailboxChanged)     {}
func (h *benchHandler) State(st client.State) {
	if st.State == client.StateOnline {
		h.once.Do(func() { close(h.online) })
	}
}

type benchEnv struct {
	db    *relaydb.DB
	url   string
	user  string
	scout string
	token string
}

func newBenchEnv(b *testing.B) *benchEnv {
	ctx, cancel := context.WithCancel(context.Background())
	db, err := relaydb.Open(ctx, filepath.Join(b.TempDir(), "relay.db"))
	if err != nil {
		b.Fatal(err)
	}
	u, _ := db.AddUser(ctx, "bench@example.com")
	_, tok, _ := db.AddDevice(ctx, "bench@example.com", "bench")
	db.ApplyOnce(ctx, u.ID, "op", func(tx *sql.Tx) ([]byte, error) {
		return []byte("{}"), db.UpsertScout(ctx, tx, relayScout(u.ID))
	})
	srv := server.New(server.Config{DB: db, Window: 256})
	hs := httptest.NewServer(srv.Handler())
	go srv.Run(ctx)
	b.Cleanup(func() { hs.Close(); cancel(); db.Close() })
	return &benchEnv{db: db, url: hs.URL, user: u.ID, scout: "sc_bench", token: tok}
}

func (e *benchEnv) enqueue(b *testing.B) {
	if _, _, err := e.db.Enqueue(context.Background(), relaydb.NewItem{UserID: e.user, ScoutID: e.scout, SourceType: "webhook", Verdict: "relevant"}); err != nil {
		b.Fatal(err)
	}
}

func (e *benchEnv) connect(b *testing.B, h *benchHandler, batch int) {
	c, err := client.New(client.Config{URL: e.url, Token: e.token, Handler: h, MaxBatch: batch})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go c.Run(ctx)
	b.Cleanup(cancel)
	<-h.online
}

func report(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkQueuedToCommitted: a row is queued (committed to the relay's
// SQLite), delivered, committed to the desktop's SQLite and acknowledged.
func BenchmarkQueuedToCommitted(b *testing.B) {
	e := newBenchEnv(b)
	h := newBenchHandler(b)
	e.connect(b, h, 256)
	var ds []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		e.enqueue(b)
		<-h.committed
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	report(b, ds)
}

// BenchmarkFloorWebSocketEcho: a bare WebSocket round trip on loopback.
func BenchmarkFloorWebSocketEcho(b *testing.B) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			t, m, err := c.Read(r.Context())
			if err != nil {
				return
			}
			c.Write(r.Context(), t, m)
		}
	}))
	defer hs.Close()
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseNow()
	msg := []byte(strings.Repeat("x", 200))
	var ds []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		c.Write(context.Background(), websocket.MessageText, msg)
		c.Read(context.Background())
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	report(b, ds)
}

// BenchmarkFloorSQLiteInsert: one durable single-row transaction, the
// relay's cost floor per queued row.
func BenchmarkFloorSQLiteInsert(b *testing.B) {
	db, err := store.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "f.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.Writer().Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`)
	var ds []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		db.Tx(context.Background(), func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO t (id, v) VALUES (?, ?)`, i, "x")
			return err
		})
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	report(b, ds)
}

// BenchmarkDrain: deliveries per second while a desktop drains a backlog
// of b.N rows, acknowledging each row alone or in batches.
func BenchmarkDrain(b *testing.B) {
	for _, batch := range []int{1, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			e := newBenchEnv(b)
			for range b.N {
				e.enqueue(b)
			}
			h := newBenchHandler(b)
			b.ResetTimer()
			start := time.Now()
			e.connect(b, h, batch)
			for n := 0; n < b.N; {
				n += len(<-h.committed)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkIdle10k runs the real relay binary and connects 10 000 devices
// (100 users × 100 devices) to it: the relay's RSS per idle session, and the
// time for all of them to reconnect and resume after the relay restarts.
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

	start := func(addr string) (*exec.Cmd, string) {
		cmd := exec.Command(bin, "serve", "--listen", addr, "--database", dsn, "--log-level", "warn")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), " listening on "); ok {
				go func() {
					for sc.Scan() {
					}
				}()
				return cmd, strings.Fields(rest)[0]
			}
		}
		b.Fatal("relay did not start")
		return nil, ""
	}
	rss := func(pid int) float64 {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				return kb
			}
		}
		return 0
	}

	cmd, url := start("127.0.0.1:0")
	addr := strings.TrimPrefix(url, "http://")
	idle := rss(cmd.Process.Pid)
	wsURL := "ws://" + addr + "/api/v1/device"

	// Each device dials, says hello, waits for welcome, then stays idle,
	// answering pings; when the connection drops it reconnects at once.
	// Each welcome is announced on welcomed; the benchmark counts them.
	welcomed := make(chan struct{}, len(tokens))
	waitAll := func() {
		for range tokens {
			<-welcomed
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	device := func(tok string) {
		defer wg.Done()
		keys, _ := client.DeviceKeys(tok)
		hello, _ := protocol.Encode(protocol.TypeHello, "", 0, protocol.Hello{Token: tok, Protocol: 1, PublicKey: keys.Public[:]})
		for {
			select {
			case <-stop:
				return
			default:
			}
			dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			c, _, err := websocket.Dial(dctx, wsURL, nil)
			cancel()
			if err != nil {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond): // the relay is restarting
				}
				continue
			}
			c.Write(ctx, websocket.MessageText, hello)
			if _, _, err := c.Read(ctx); err == nil {
				welcomed <- struct{}{}
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
	}
	b.ResetTimer()
	t0 := time.Now()
	for _, tok := range tokens {
		wg.Add(1)
		go device(tok)
	}
	waitAll()
	connectTime := time.Since(t0)
	loaded := rss(cmd.Process.Pid)

	// Restart: every device reconnects and resumes.
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	t1 := time.Now()
	cmd, _ = start(addr)
	waitAll()
	reconnect := time.Since(t1)
	b.StopTimer()
	b.ReportMetric((loaded-idle)/float64(len(tokens)), "KiB/idle-device")
	b.ReportMetric(connectTime.Seconds(), "s-first-connect-10k")
	b.ReportMetric(reconnect.Seconds(), "s-reconnect-10k")
	close(stop)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	wg.Wait()
}
