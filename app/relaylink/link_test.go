package relaylink_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/relaylink"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/scouts"
)

// relayFixture is an in-process relay on a real SQLite database, listening
// on a fixed loopback address so that it can be stopped and started again
// where the desktop expects it.
type relayFixture struct {
	t     *testing.T
	db    *relaydb.DB
	addr  string
	stop  func()
	token string
	user  string
	now   time.Time
}

func newRelay(t *testing.T) *relayFixture {
	t.Helper()
	ctx := context.Background()
	db, err := relaydb.Open(ctx, filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	u, _ := db.AddUser(ctx, "ann@example.com")
	_, tok, _ := db.AddDevice(ctx, "ann@example.com", "laptop")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &relayFixture{t: t, db: db, addr: l.Addr().String(), token: tok, user: u.ID, now: time.Now()}
	f.serve(l)
	return f
}

func (f *relayFixture) serve(l net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := server.New(server.Config{Service: service.New(service.Config{DB: f.db, PublicURL: "http://" + f.addr})})
	done := make(chan struct{})
	go func() { srv.ServeListener(ctx, l, 5*time.Second); close(done) }()
	f.stop = func() { cancel(); <-done }
	f.t.Cleanup(func() { f.stop() })
}

func (f *relayFixture) start() {
	f.t.Helper()
	l, err := net.Listen("tcp", f.addr)
	if err != nil {
		f.t.Fatal(err)
	}
	f.serve(l)
}

func openCore(t *testing.T, relayURL, token string) (*core.Core, *bus.Subscription) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := core.Open(ctx, core.Config{DataDir: t.TempDir(), RelayURL: relayURL, RelayToken: token})
	if err != nil {
		t.Fatal(err)
	}
	sub, _, _ := c.Bus.Subscribe(0, 4096)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Close() })
	return c, sub
}

// waitFor waits for a bus event for which ok returns true.
func waitFor(t *testing.T, sub *bus.Subscription, what string, ok func(scouts.Event) bool) scouts.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-sub.C:
			if ok(m.Event) {
				return m.Event
			}
		case <-deadline:
			t.Fatalf("no %s within 30s", what)
		}
	}
}

func relayState(state string, outbox int) func(scouts.Event) bool {
	return func(e scouts.Event) bool {
		st, ok := e.Data.(relaylink.Status)
		return e.Type == relaylink.EventState && ok && st.State == state && (outbox < 0 || st.Outbox == outbox)
	}
}

// Created offline, a webhook scout waits in the outbox and is registered
// once when the relay is back; rotating its token retires the old one; a
// row that expires on the relay shows as an expired card.
func TestOutboxReplaysOfflineOperationsOnce(t *testing.T) {
	ctx := context.Background()
	r := newRelay(t)
	r.stop() // the desktop starts offline
	c, sub := openCore(t, "http://"+r.addr, r.token)
	waitFor(t, sub, "offline", relayState("offline", -1))

	created, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindWebhook, Name: "CI", Review: true, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	renamed := "CI (prod)"
	if _, err := c.UpdateScout(ctx, created.Scout.ID, core.ScoutPatch{Name: &renamed}); err != nil {
		t.Fatal(err)
	}
	if st := c.Relay().Status(ctx); st.Outbox != 2 {
		t.Fatalf("outbox %d while offline, want 2", st.Outbox)
	}
	r.start()
	c.Relay().Sync()
	waitFor(t, sub, "outbox drained", relayState("online", 0))
	sc, err := r.db.Scout(ctx, created.Scout.ID)
	if err != nil || sc.Name != renamed || sc.HookTokenHash != relaydb.HashToken(created.HookToken) {
		t.Fatalf("relay's scout after replay: %+v %v", sc, err)
	}
	// Replaying the whole outbox again changes nothing on the relay.
	n, _ := c.DB.OutboxCounts(ctx)
	if n["done"] != 2 || n["pending"] != 0 {
		t.Fatalf("outbox after replay: %v", n)
	}

	// Rotation: the relay gets the new hash; the old token stops working.
	rot, err := c.UpdateScout(ctx, created.Scout.ID, core.ScoutPatch{RotateHookToken: true})
	if err != nil || rot.HookToken == "" || rot.HookToken == created.HookToken {
		t.Fatalf("rotate: %+v %v", rot, err)
	}
	waitFor(t, sub, "rotation queued", func(e scouts.Event) bool {
		st, ok := e.Data.(relaylink.Status)
		return e.Type == relaylink.EventState && ok && st.Outbox > 0
	})
	waitFor(t, sub, "rotation applied", relayState("online", 0))
	hookURL := "http://" + r.addr + "/api/v1/hooks/" + created.Scout.ID
	postHook := func(token, title string) int {
		req, _ := http.NewRequest("POST", hookURL, strings.NewReader(`{"title":"`+title+`"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := postHook(created.HookToken, "old token"); code != http.StatusUnauthorized {
		t.Fatalf("old token after rotation: %d", code)
	}
	if code := postHook(rot.HookToken, "new token"); code != http.StatusAccepted {
		t.Fatalf("new token: %d", code)
	}
	ev := waitFor(t, sub, "suggestion", func(e scouts.Event) bool { return e.Type == scouts.EventSuggestionCreated })
	if s := ev.Data.(scouts.Suggestion); s.Title != "new token" {
		t.Fatalf("suggestion %+v", s)
	}

	// An item that expires on the relay before reaching the desktop: the
	// desktop is offline, the relay's sweeper expires it, and on reconnect
	// the desktop shows an expired card rather than nothing.
	r.stop()
	waitFor(t, sub, "offline again", relayState("offline", -1))
	row, _, err := r.db.Enqueue(ctx, relaydb.NewItem{UserID: r.user, ScoutID: created.Scout.ID, SourceType: relay.KindWebhook, Verdict: "relevant"})
	if err != nil {
		t.Fatal(err)
	}
	r.db.SetClock(func() time.Time { return time.Now().Add(relay.QueueTTL + time.Hour) })
	if _, err := r.db.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	r.start()
	c.Relay().Sync()
	waitFor(t, sub, "expired card", func(e scouts.Event) bool {
		s, ok := e.Data.(scouts.Suggestion)
		return e.Type == scouts.EventSuggestionResolved && ok && s.Status == scouts.StatusExpired && s.SourceRef == row.ID
	})
	list, _ := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{Status: scouts.StatusExpired})
	if len(list) != 1 || !strings.Contains(list[0].Title, "expired on the relay") {
		b, _ := json.Marshal(list)
		t.Fatalf("expired suggestions: %s", b)
	}
}

// Proposals that reach the desktop through the relay are what a relay
// scout (webhook, relay-triage Gmail) finds: its health counts them, as a
// folder scout's counts what its runs find.
func TestRelayScoutHealthCountsDeliveredProposals(t *testing.T) {
	ctx := context.Background()
	r := newRelay(t)
	c, sub := openCore(t, "http://"+r.addr, r.token)
	created, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindWebhook, Name: "CI", Review: true, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, "scout registered", func(e scouts.Event) bool {
		_, err := r.db.Scout(ctx, created.Scout.ID)
		return relayState("online", 0)(e) && err == nil
	})
	const n = 7
	for range n {
		if _, _, err := r.db.Enqueue(ctx, relaydb.NewItem{UserID: r.user, ScoutID: created.Scout.ID, SourceType: relay.KindWebhook, Verdict: "relevant"}); err != nil {
			t.Fatal(err)
		}
	}
	// Each batch the desktop commits is counted in the scout's health and
	// announced (scout.run) before it is acknowledged; the health is read
	// again after each event until it counts all n.
	var s scouts.Scout
	deadline := time.After(30 * time.Second)
	for {
		var err error
		if s, err = c.DB.GetScout(ctx, created.Scout.ID); err != nil {
			t.Fatal(err)
		}
		if s.TotalNew >= n {
			break
		}
		select {
		case _, ok := <-sub.C:
			if !ok { // dropped for being slow: look again, listening anew
				sub, _, _ = c.Bus.Subscribe(0, 4096)
			}
		case <-deadline:
			depth, _ := r.db.QueueDepth(ctx)
			t.Fatalf("the scout's health counts %d of %d delivered proposals after 30 s (relay queue %v)", s.TotalNew, n, depth)
		}
	}
	if s.TotalNew != n || s.LastError != "" {
		t.Fatalf("scout health after %d delivered proposals: total_new %d, last error %q", n, s.TotalNew, s.LastError)
	}
}
