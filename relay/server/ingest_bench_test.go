package server_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/sealbox"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/store/storetest"
)

// ingestPosters is how many webhook callers post at once, each waiting for
// its answer before the next request (a closed loop).
const ingestPosters = 16

// ingestRelay is a relay served as the binary serves it (timeouts,
// connection caps, JSON logs at info level, discarded), with one webhook
// scout whose user has one connected device to seal for, which opens the
// seal format given ("" for the anonymous sealed box only).
type ingestRelay struct {
	db    *relaydb.DB
	url   string
	token string
}

func newIngestRelay(b *testing.B, dsn, seal string) *ingestRelay {
	ctx, cancel := context.WithCancel(context.Background())
	db, err := relaydb.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	u, err := db.AddUser(ctx, "ingest@example.com")
	if err != nil {
		b.Fatal(err)
	}
	dv, _, err := db.AddDevice(ctx, "ingest@example.com", "laptop")
	if err != nil {
		b.Fatal(err)
	}
	key := make([]byte, 32)
	key[0] = 9
	if err := db.DeviceConnected(ctx, dv.ID, key, seal); err != nil {
		b.Fatal(err)
	}
	token := "hook-token-ingest"
	sc := relay.CloudScout{ID: "sc_ingest", UserID: u.ID, Kind: relay.KindWebhook, Name: "ingest", Enabled: true,
		HookTokenHash: relaydb.HashToken(token)}
	if _, _, err := db.ApplyOnce(ctx, u.ID, "op-ingest", func(tx *sql.Tx) ([]byte, error) {
		return []byte("{}"), db.UpsertScout(ctx, tx, sc)
	}); err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := server.New(server.Config{Service: service.New(service.Config{DB: db, Logger: log, PublicURL: "http://" + l.Addr().String()}), Logger: log})
	done := make(chan struct{})
	go func() { srv.ServeListener(ctx, l, 5*time.Second); close(done) }()
	b.Cleanup(func() { cancel(); <-done; db.Close() })
	return &ingestRelay{db: db, url: "http://" + l.Addr().String() + "/api/v1/hooks/sc_ingest", token: token}
}

// postAll posts n webhook items from ingestPosters callers and returns the
// items per second; every answer must be 202 (or 200 for the floor).
// Each request carries its own Idempotency-Key, as a careful caller's do.
func postAll(b *testing.B, url, token string, n int, round int) float64 {
	tr := &http.Transport{MaxIdleConnsPerHost: ingestPosters, MaxConnsPerHost: ingestPosters}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range ingestPosters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				body := fmt.Sprintf(`{"title":"item %d","body":"posted by the ingest benchmark","url":"https://example.com/%d"}`, i, i)
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", fmt.Sprintf("r%d-i%d", round, i))
				res, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusAccepted && res.StatusCode != http.StatusOK {
					b.Errorf("post answered %s", res.Status)
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkWebhookIngest: webhook items per second into the relay, 16
// callers posting at once, on SQLite and on PostgreSQL, beside the floor of
// the same client posting to a bare net/http handler that reads the body
// and answers 200 (and of a second floor that also seals the body for
// one device key, anonymously or in batch-v1). The SQLite relay runs twice:
// its device opening batch-v1 as desktops do now, and only the anonymous
// box as older ones did. Each round posts the floors, then SQLite, then
// PostgreSQL; the figures are the medians over rounds. Every accepted item
// must be in the queue when the round ends.
//
//	go test -run '^$' -bench WebhookIngest -benchtime 5x ./relay/server
func BenchmarkWebhookIngest(b *testing.B) {
	const n = 5000
	floorL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	floor := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"rq_floor","duplicate":false}` + "\n"))
	})}
	go floor.Serve(floorL)
	defer floor.Close()
	floorURL := "http://" + floorL.Addr().String() + "/"
	// The second floor also seals each body for one device key, as the
	// relay must: what the cryptography leaves of the first.
	sealL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	devKey, _, _ := box.GenerateKey(rand.Reader)
	sealFloor := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if _, err := box.SealAnonymous(nil, body, devKey, rand.Reader); err != nil {
			b.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"rq_floor","duplicate":false}` + "\n"))
	})}
	go sealFloor.Serve(sealL)
	defer sealFloor.Close()
	sealURL := "http://" + sealL.Addr().String() + "/"
	// The third seals as the relay does for a device that opens batch-v1.
	batchL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var sealer sealbox.Sealer
	batchFloor := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if _, err := sealer.Seal(*devKey, body); err != nil {
			b.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"rq_floor","duplicate":false}` + "\n"))
	})}
	go batchFloor.Serve(batchL)
	defer batchFloor.Close()
	batchURL := "http://" + batchL.Addr().String() + "/"

	relays := []struct {
		name string
		r    *ingestRelay
	}{
		{"sqlite", newIngestRelay(b, filepath.Join(b.TempDir(), "relay.db"), protocol.SealBatchV1)},
		{"sqlite-anon", newIngestRelay(b, filepath.Join(b.TempDir(), "relay-anon.db"), "")},
		{"postgres", newIngestRelay(b, storetest.PostgresDSN(b), protocol.SealBatchV1)},
	}
	rates := map[string][]float64{}
	round := 0
	for b.Loop() {
		round++
		rates["floor"] = append(rates["floor"], postAll(b, floorURL, "x", n, round))
		rates["seal"] = append(rates["seal"], postAll(b, sealURL, "x", n, round))
		rates["batch"] = append(rates["batch"], postAll(b, batchURL, "x", n, round))
		for _, r := range relays {
			rates[r.name] = append(rates[r.name], postAll(b, r.r.url, r.r.token, n, round))
		}
	}
	b.StopTimer()
	for _, r := range relays {
		depth, err := r.r.db.QueueDepth(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if got, want := depth[relay.StatusQueued], n*round; got != want {
			b.Fatalf("%s: %d rows queued for %d accepted posts", r.name, got, want)
		}
	}
	b.ReportMetric(median(rates["floor"]), "floor-items/s")
	b.ReportMetric(median(rates["seal"]), "floor+seal-items/s")
	b.ReportMetric(median(rates["batch"]), "floor+batch-items/s")
	for _, r := range relays {
		b.ReportMetric(median(rates[r.name]), r.name+"-items/s")
		b.ReportMetric(median(rates[r.name])/median(rates["floor"]), r.name+"/floor")
	}
}
