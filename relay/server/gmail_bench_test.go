package server_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
	"github.com/scouts-hq/scouts/store/storetest"
)

// openLoop sends n requests at rate per second, each in its own
// goroutine (so a slow answer does not slow the sender, as with Pub/Sub),
// and returns every request's latency.
func openLoop(b *testing.B, url string, body []byte, n, rate int) []time.Duration {
	tr := &http.Transport{MaxIdleConnsPerHost: 512}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for i := range n {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			res, err := client.Post(url, "application/json", strings.NewReader(string(body)))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusNoContent {
				b.Errorf("push answered %s", res.Status)
			}
			lat[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	return lat
}

func pct(d []time.Duration, p float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[int(float64(len(s)-1)*p)].Microseconds()) / 1000
}

// BenchmarkGmailPush: Pub/Sub push → authenticated → hint persisted →
// 204, at 1 000 pushes/s open loop, on SQLite (WAL) and on PostgreSQL,
// beside the floor of the same HTTP stack answering 204 without
// persisting anything. Each round sends to the floor, then SQLite, then
// PostgreSQL.
func BenchmarkGmailPush(b *testing.B) {
	const n, rate = 3000, 1000
	data, _ := json.Marshal(map[string]any{"emailAddress": "ann@example.com", "historyId": 123456})
	body, _ := json.Marshal(map[string]any{"message": map[string]string{"data": base64.StdEncoding.EncodeToString(data), "messageId": "1"},
		"subscription": "projects/p/subscriptions/s"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	verifier, _ := pushauth.New(pushauth.Config{Secret: pushSecret})
	type backend struct {
		name string
		db   *relaydb.DB
		url  string
		lat  []time.Duration
	}
	var backends []*backend
	for _, tc := range []struct{ name, dsn string }{
		{"sqlite", filepath.Join(b.TempDir(), "relay.db")},
		{"postgres", storetest.PostgresDSN(b)},
	} {
		db, err := relaydb.Open(ctx, tc.dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		// The service is not run: hints pile up untouched, so the figure
		// is the endpoint's alone.
		svc := gmailscout.New(gmailscout.Config{DB: db})
		srv := server.New(server.Config{Service: service.New(service.Config{DB: db, Gmail: svc}), PushAuth: verifier})
		hs := httptest.NewServer(srv.Handler())
		defer hs.Close()
		backends = append(backends, &backend{name: tc.name, db: db, url: hs.URL + "/api/v1/scouts/webhooks/gmail?token=" + pushSecret})
	}
	floor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer floor.Close()

	// A second floor: the same HTTP stack and client, each request
	// committing one row to PostgreSQL alone, as the endpoint did before
	// group commit: PostgreSQL's own commit latency on this machine.
	pg, err := sql.Open("pgx", storetest.PostgresDSN(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	pg.SetMaxOpenConns(20) // the relay's pool
	if _, err := pg.Exec(`CREATE TABLE hints (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	pgFloor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if _, err := pg.ExecContext(r.Context(), `INSERT INTO hints (body) VALUES ($1)`, string(body)); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer pgFloor.Close()

	var bare, pgBare []time.Duration
	for b.Loop() {
		bare = append(bare, openLoop(b, floor.URL, body, n, rate)...)
		pgBare = append(pgBare, openLoop(b, pgFloor.URL, body, n, rate)...)
		for _, be := range backends {
			be.lat = append(be.lat, openLoop(b, be.url, body, n, rate)...)
		}
	}
	b.ReportMetric(pct(bare, 0.5), "floor-p50-ms")
	b.ReportMetric(pct(bare, 0.99), "floor-p99-ms")
	b.ReportMetric(pct(pgBare, 0.5), "pg-insert-floor-p50-ms")
	b.ReportMetric(pct(pgBare, 0.99), "pg-insert-floor-p99-ms")
	for _, be := range backends {
		b.ReportMetric(pct(be.lat, 0.5), be.name+"-p50-ms")
		b.ReportMetric(pct(be.lat, 0.99), be.name+"-p99-ms")
		hints, _ := be.db.PushHints(ctx, 1<<20)
		if len(hints) != len(be.lat) {
			b.Fatalf("%s: %d hints persisted for %d pushes", be.name, len(hints), len(be.lat))
		}
	}
}

// BenchmarkGmailQuotaPerMessage: Gmail quota units the relay spends per
// new message, relay-triage, no model: corpus mail arriving one message
// per push, in bursts of 20 per push, and one per push with 40 % of it in
// Gmail's Promotions tab; delivery to a connected device included. Google's published per-method costs, counted by the fake.
func BenchmarkGmailQuotaPerMessage(b *testing.B) {
	for _, tc := range []struct{ burst, promoPct int }{{1, 0}, {20, 0}, {1, 40}} {
		burst := tc.burst
		b.Run(fmt.Sprintf("burst=%d/promotions=%d%%", burst, tc.promoPct), func(b *testing.B) {
			c := corpustest.ForTest(b)
			items, err := c.Load(corpus.EasyHam1)
			if err != nil {
				b.Fatal(err)
			}
			var perMsg float64
			for b.Loop() {
				perMsg = quotaRun(b, items[:200], burst, tc.promoPct)
			}
			b.ReportMetric(perMsg, "units/msg")
		})
	}
}

func quotaRun(b *testing.B, items []corpus.Item, burst, promoPct int) float64 {
	g := newGmailEnv(b, time.Hour)
	r := g.dial()
	r.hello(g.token, 0)
	rt := g.refreshToken()
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_q", Kind: "gmail", Name: "Gmail", Enabled: true,
		Email: ann, Mode: protocol.ModeRelayTriage, RefreshToken: rt})
	r.configResult()
	// The desktop: reads and acknowledges every proposal, so delivery
	// (and its quota) is part of the figure.
	go func() {
		for {
			f, err := r.recv()
			if err != nil {
				return
			}
			if f.Type == protocol.TypeProposal {
				r.send(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: []int64{f.Seq}})
			}
		}
	}()
	g.until("the baseline", func() bool {
		sc, err := g.db.GmailScout(context.Background(), "sc_q")
		return err == nil && sc.Gmail.Cursor > 0
	})
	before := g.gmail.Quota(ann)
	delivered := 0
	for i := 0; i < len(items); i += burst {
		end := min(i+burst, len(items))
		// A burst: all but the last message arrive with notifications
		// lost, as when Gmail coalesces (at most one per second).
		g.gmail.DropNotifications(ann, end-i-1)
		for j, it := range items[i:end] {
			labels := []string{"INBOX", "UNREAD"}
			if (i+j)%100 < promoPct {
				// Filed under Promotions by Gmail, as a share of real mail is.
				labels = append(labels, "CATEGORY_PROMOTIONS")
			}
			if _, _, err := g.gmail.Deliver(ann, it.Raw, labels...); err != nil {
				b.Fatal(err)
			}
		}
		// Wait until the relay's cursor reached the mailbox: the burst
		// is judged.
		hid := g.gmail.HistoryID(ann)
		g.until("the burst to be judged", func() bool {
			sc, _ := g.db.GmailScout(context.Background(), "sc_q")
			return sc.Gmail.Cursor >= hid
		})
		delivered += end - i
	}
	return float64(g.gmail.Quota(ann)-before) / float64(delivered)
}
