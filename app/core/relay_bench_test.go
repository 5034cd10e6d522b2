package core_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/sealbox"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// drainEnv is a SQLite relay in process and a desktop data directory whose
// webhook scout the relay knows, with the device's public key registered.
type drainEnv struct {
	db      *relaydb.DB
	url     string
	token   string
	user    string
	scoutID string
	dataDir string
	devID   string
	devKey  [32]byte
	// anonymous seals as the relay does for a device that lists no
	// format; otherwise items are sealed in batch-v1, as for this desktop.
	anonymous bool
	sealer    sealbox.Sealer
}

func newDrainEnv(b *testing.B) *drainEnv {
	ctx, cancel := context.WithCancel(context.Background())
	db, err := relaydb.Open(ctx, filepath.Join(b.TempDir(), "relay.db"))
	if err != nil {
		b.Fatal(err)
	}
	u, _ := db.AddUser(ctx, "bench@example.com")
	dev, tok, _ := db.AddDevice(ctx, "bench@example.com", "laptop")
	keys, err := client.DeviceKeys(tok)
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := server.New(server.Config{Service: service.New(service.Config{DB: db, PublicURL: "http://" + l.Addr().String()}), Window: 256})
	done := make(chan struct{})
	go func() { srv.ServeListener(ctx, l, 5*time.Second); close(done) }()
	b.Cleanup(func() { cancel(); <-done; db.Close() })
	e := &drainEnv{db: db, url: "http://" + l.Addr().String(), token: tok, user: u.ID, dataDir: b.TempDir(),
		devID: dev.ID, devKey: keys.Public}

	// A first run registers the scout and the device's key with the relay.
	c, sub := e.open(b)
	created, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindWebhook, Name: "CI", Review: true, Enabled: true})
	if err != nil {
		b.Fatal(err)
	}
	e.scoutID = created.Scout.ID
	deadline := time.After(30 * time.Second)
	for {
		_, err := db.Scout(ctx, e.scoutID)
		st := c.Relay().Status(ctx)
		if err == nil && st.State == "online" && st.Outbox == 0 {
			break
		}
		select {
		case <-sub.C:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			b.Fatal("the webhook scout was not registered within 30 s")
		}
	}
	c.Close()
	return e
}

// open opens and starts the desktop's core on the environment's data
// directory.
func (e *drainEnv) open(b *testing.B) (*core.Core, *bus.Subscription) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := core.Open(ctx, core.Config{DataDir: e.dataDir, RelayURL: e.url, RelayToken: e.token})
	if err != nil {
		b.Fatal(err)
	}
	sub, _, _ := c.Bus.Subscribe(0, 1<<16)
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); c.Close() })
	return c, sub
}

// enqueue queues n webhook items sealed to the device, as the relay's
// webhook endpoint does, and returns the last sequence number.
func (e *drainEnv) enqueue(b *testing.B, n int) int64 {
	var last int64
	for i := range n {
		last = e.enqueueOne(b, i)
	}
	return last
}

func (e *drainEnv) enqueueOne(b *testing.B, i int) int64 {
	plain, _ := json.Marshal(protocol.WebhookPayload{Title: fmt.Sprintf("Build %d failed on main", i),
		URL:  fmt.Sprintf("https://ci.example.com/builds/%d", i),
		Body: strings.Repeat("The integration suite failed at step deploy. ", 6)})
	var sealed []byte
	var err error
	if e.anonymous {
		sealed, err = box.SealAnonymous(nil, plain, &e.devKey, rand.Reader)
	} else {
		sealed, err = e.sealer.Seal(e.devKey, plain)
	}
	if err != nil {
		b.Fatal(err)
	}
	row, _, err := e.db.Enqueue(context.Background(), relaydb.NewItem{UserID: e.user, ScoutID: e.scoutID,
		SourceType: relay.KindWebhook, Verdict: "relevant", Reason: "Posted to the webhook of scout CI",
		Sealed: map[string][]byte{e.devID: sealed}})
	if err != nil {
		b.Fatal(err)
	}
	return row.Seq
}

// waitSeq waits until the desktop has committed everything up to seq:
// each commit's cursor is announced (relay.state), and the status read
// again after each event.
func waitSeq(b *testing.B, c *core.Core, seq int64) {
	sub, _, _ := c.Bus.Subscribe(0, 4096)
	defer func() { sub.Close() }()
	deadline := time.After(2 * time.Minute)
	for c.Relay().Status(context.Background()).LastSeq < seq {
		select {
		case _, ok := <-sub.C:
			if !ok { // dropped for being slow: look again, listening anew
				sub, _, _ = c.Bus.Subscribe(0, 4096)
			}
		case <-deadline:
			b.Fatalf("the desktop did not commit up to seq %d within 2 minutes", seq)
		}
	}
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRelayDrain: a desktop that was offline while 5 000 sealed
// webhook items queued on a SQLite relay connects and drains them into
// suggestions (open the sealed payload, dedupe, learner features,
// suggestion + audit rows, cursor, acknowledgement). Each iteration is a
// fresh relay and desktop; the reported figures are medians over the
// iterations: items/s from the desktop's start to its last commit, and
// the CPU time the process (desktop and in-process relay) spent per item,
// steadier than the rate on a machine shared with other work. The backlog
// is sealed in batch-v1, as the relay seals for this desktop, and in the
// anonymous box (rows of a device that listed no format).
func BenchmarkRelayDrain(b *testing.B) {
	for _, anonymous := range []bool{false, true} {
		name := "batch-v1"
		if anonymous {
			name = "anonymous"
		}
		b.Run(name, func(b *testing.B) { benchDrain(b, anonymous) })
	}
}

func benchDrain(b *testing.B, anonymous bool) {
	const backlog = 5000
	var rates, cpus []float64
	for range b.N {
		b.StopTimer()
		e := newDrainEnv(b)
		e.anonymous = anonymous
		last := e.enqueue(b, backlog)
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		c, _ := e.open(b)
		waitSeq(b, c, last)
		rates = append(rates, backlog/time.Since(start).Seconds())
		cpus = append(cpus, float64((cpuTime()-cpu0).Microseconds())/backlog)
		b.StopTimer()
		if n, err := c.DB.CountSuggestions(context.Background()); err != nil || n[scouts.StatusPending] != backlog {
			b.Fatalf("suggestions after the drain: %v %v, want %d pending", n, err, backlog)
		}
	}
	slices.Sort(rates)
	slices.Sort(cpus)
	b.ReportMetric(rates[len(rates)/2], "items/s")
	b.ReportMetric(cpus[len(cpus)/2], "cpu-µs/item")
}

// BenchmarkFloorBatchedInserts is the drain's floor: 5 000 rows of the
// size of a suggestion inserted into a fresh database of the agent's
// store, 256 rows per transaction with one prepared statement.
func BenchmarkFloorBatchedInserts(b *testing.B) {
	const rows, batch = 5000, 256
	body := strings.Repeat("x", 300)
	var rates, cpus []float64
	for range b.N {
		db, err := store.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "floor.db"), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.Writer().Exec(`CREATE TABLE t (id TEXT PRIMARY KEY, scout TEXT, ref TEXT, body TEXT, at INTEGER, UNIQUE (scout, ref))`); err != nil {
			b.Fatal(err)
		}
		start, cpu0 := time.Now(), cpuTime()
		for i := 0; i < rows; i += batch {
			err := db.Tx(context.Background(), func(tx *sql.Tx) error {
				st, err := tx.Prepare(`INSERT INTO t (id, scout, ref, body, at) VALUES (?, ?, ?, ?, ?)`)
				if err != nil {
					return err
				}
				defer st.Close()
				for j := i; j < min(i+batch, rows); j++ {
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
		rates = append(rates, rows/time.Since(start).Seconds())
		cpus = append(cpus, float64((cpuTime()-cpu0).Microseconds())/rows)
		db.Close()
	}
	slices.Sort(rates)
	slices.Sort(cpus)
	b.ReportMetric(rates[len(rates)/2], "items/s")
	b.ReportMetric(cpus[len(cpus)/2], "cpu-µs/item")
}

// BenchmarkRelayQueuedToCommitted: one sealed webhook item at a time is
// queued on the relay; the time from its row's commit there to its
// suggestion's on the desktop (the suggestion.created event): the relay's
// wake-up and delivery, the desktop opening the payload, recording the
// suggestion and its cursor. Under "busy", a process
// spinning on one core competes for the CPU throughout, as other work on
// a desktop does.
func BenchmarkRelayQueuedToCommitted(b *testing.B) {
	for _, load := range []string{"quiet", "busy"} {
		b.Run(load, func(b *testing.B) {
			e := newDrainEnv(b)
			_, sub := e.open(b)
			if load == "busy" {
				spin := exec.Command("sh", "-c", "while :; do :; done")
				if err := spin.Start(); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { spin.Process.Kill(); spin.Wait() })
			}
			var ds []time.Duration
			b.ResetTimer()
			for i := range b.N {
				e.enqueueOne(b, i)
				start := time.Now() // queued: committed on the relay
				for m := range sub.C {
					if m.Event.Type == scouts.EventSuggestionCreated {
						break
					}
				}
				ds = append(ds, time.Since(start))
			}
			b.StopTimer()
			reportLatency(b, ds)
		})
	}
}
