package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
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
	srv := server.New(server.Config{Service: service.New(service.Config{DB: db}), Window: 256})
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
