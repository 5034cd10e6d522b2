package gmailtest

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/relay/tokenseal"
)

const (
	pushSecret = "gmailtest-push-secret-0123456789"
	// Topic is the relay's Pub/Sub topic.
	Topic = "projects/scouts-test/topics/gmail"
)

// Relay is an in-process relay with Gmail scouts on a real SQLite
// database, at a fixed loopback address so that it can be stopped and
// started again where the desktop expects it. Gmail's notifications reach
// its push endpoint while it runs.
type Relay struct {
	t     testing.TB
	g     *Google
	DB    *relaydb.DB
	addr  string
	keys  *tokenseal.Keys
	stop  func()
	URL   string
	Token string // Ann's device token
	// changed fires after each message the relay sends a device (a
	// scout's status once its state is stored), connected or not, and
	// after each sync of a scout (its place in the mailbox stored).
	changed wake.Wake
}

// Until waits for cond, looking again after each message the relay sends
// a device and each sync of a scout: for relay state it reports once
// stored (a scout disabled, its state, its place in the mailbox). It
// fails the test after a minute, saying what explain saw.
func (r *Relay) Until(what string, cond func() bool, explain ...func() string) {
	r.t.Helper()
	until(r.t, what, cond, explain, r.changed.Next)
}

// StartRelay starts a relay with one user, Account, and one device.
func (g *Google) StartRelay(t testing.TB) *Relay {
	t.Helper()
	ctx := context.Background()
	db, err := relaydb.Open(ctx, filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.AddUser(ctx, Account); err != nil {
		t.Fatal(err)
	}
	_, tok, err := db.AddDevice(ctx, Account, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := tokenseal.Parse(tokenseal.NewKeyLine("k1"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{t: t, g: g, DB: db, addr: l.Addr().String(), keys: keys, stop: func() {}, Token: tok}
	r.URL = "http://" + r.addr
	r.serve(l)
	return r
}

func (r *Relay) serve(l net.Listener) {
	verifier, err := pushauth.New(pushauth.Config{Secret: pushSecret})
	if err != nil {
		r.t.Fatal(err)
	}
	ep := r.g.Endpoints()
	var srv *server.Server
	svc := gmailscout.New(gmailscout.Config{DB: r.DB, Keys: r.keys, ClientID: oauthfake.DefaultClientID,
		ClientSecret: oauthfake.DefaultClientSecret, TokenURL: ep.Token, GmailURL: r.g.GmailURL, Topic: Topic,
		PollEvery: 500 * time.Millisecond, Send: func(u, typ string, d any) { srv.Send(u, typ, d); r.changed.Fire() },
		Synced: func(string, error) { r.changed.Fire() }})
	srv = server.New(server.Config{Service: service.New(service.Config{DB: r.DB, PublicURL: r.URL, Gmail: svc}),
		Heartbeat: time.Hour, PushAuth: verifier})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.ServeListener(ctx, l, 5*time.Second); close(done) }()
	r.g.pushTo(r.URL + "/api/v1/scouts/webhooks/gmail?token=" + pushSecret)
	r.stop = func() { cancel(); <-done }
	r.t.Cleanup(r.Stop)
}

// Stop stops the relay, as an outage does; its database stays.
func (r *Relay) Stop() {
	r.g.push.Store(nil)
	r.stop()
	r.stop = func() {}
}

// Start starts a stopped relay again at the same address.
func (r *Relay) Start() {
	r.t.Helper()
	l, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.serve(l)
}
