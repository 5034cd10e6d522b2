package gmailscout

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/tokenseal"
)

const (
	ann   = "ann@example.com"
	topic = "projects/scouts-test/topics/gmail"
)

// env is a Gmail scouts service on a real SQLite relay database, against
// the fake Google (OAuth and Gmail), with Ann as its one user. The
// service's background loops are not started: tests call what those
// loops call (trigger, handleMailbox, renewDue, pollAll) and wait on what
// it reports (frames sent, syncs finished, log records).
type env struct {
	t       *testing.T
	db      *relaydb.DB
	dbPath  string
	user    relay.User
	oauth   *oauthfake.Server
	gmail   *gmailfake.Server
	gate    *gate
	refresh string // a refresh token of Ann's, as a desktop hands it over
	svc     *Service
	frames  chan frame
	synced  chan synced
	logs    *logWatch
}

type frame struct {
	user, typ string
	data      any
}

type synced struct {
	scout string
	err   error
}

func newEnv(t *testing.T, opts ...func(*Config)) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{t: t, frames: make(chan frame, 100), synced: make(chan synced, 100), logs: &logWatch{}}
	e.dbPath = filepath.Join(t.TempDir(), "relay.db")
	db, err := relaydb.Open(ctx, e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.db = db
	if e.user, err = db.AddUser(ctx, ann); err != nil {
		t.Fatal(err)
	}
	e.oauth = oauthfake.New(oauthfake.Options{Account: ann})
	os := httptest.NewServer(e.oauth)
	t.Cleanup(os.Close)
	e.gmail = gmailfake.New(gmailfake.Options{Authorize: e.oauth.AccessTokenEmail, QuotaPerMinute: -1})
	e.gmail.AddMailbox(ann)
	e.gate = &gate{next: e.gmail}
	gs := httptest.NewServer(e.gate)
	t.Cleanup(gs.Close)
	t.Cleanup(e.gate.open) // before the server closes: nothing stays held
	e.refresh = refreshToken(t, os.URL, e.oauth)
	keys, err := tokenseal.Parse(tokenseal.NewKeyLine("k1"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{DB: db, Keys: keys, ClientID: oauthfake.DefaultClientID, ClientSecret: oauthfake.DefaultClientSecret,
		TokenURL: os.URL + oauthfake.TokenPath, GmailURL: gs.URL, Topic: topic,
		Logger: slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Send:   func(u, typ string, d any) { e.frames <- frame{u, typ, d} },
		Synced: func(id string, err error) { e.synced <- synced{id, err} }}
	for _, o := range opts {
		o(&cfg)
	}
	e.svc = New(cfg)
	return e
}

// refreshToken runs the installed-app flow against the fake, playing the
// browser, as a desktop does before handing the token to the relay.
func refreshToken(t *testing.T, oauthURL string, o *oauthfake.Server) string {
	t.Helper()
	codes := make(chan string, 1)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { codes <- r.URL.Query().Get("code") }))
	defer cb.Close()
	ep := oauthfake.EndpointsAt(oauthURL)
	cfg := oauth2.Config{ClientID: oauthfake.DefaultClientID, ClientSecret: oauthfake.DefaultClientSecret,
		Endpoint:    oauth2.Endpoint{AuthURL: ep.Auth, TokenURL: ep.Token},
		RedirectURL: cb.URL + "/oauth2/callback", Scopes: []string{"https://www.googleapis.com/auth/gmail.modify", "openid", "email"}}
	v := oauth2.GenerateVerifier()
	if _, err := o.Consent(context.Background(), cfg.AuthCodeURL("st", oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(v))); err != nil {
		t.Fatal(err)
	}
	tok, err := cfg.Exchange(context.Background(), <-codes, oauth2.VerifierOption(v))
	if err != nil || tok.RefreshToken == "" {
		t.Fatalf("exchange: %+v %v", tok, err)
	}
	return tok.RefreshToken
}

// addScout stores a Gmail scout of Ann's as a desktop's registration
// does: enabled, in mode, with a sealed refresh token in relay-triage
// mode; change adjusts it first.
func (e *env) addScout(id, mode string, change ...func(*relay.CloudScout)) {
	e.t.Helper()
	sc := relay.CloudScout{ID: id, UserID: e.user.ID, Kind: relay.KindGmail, Name: "Mail", Mode: mode, Enabled: true,
		Gmail: &relay.GmailScout{Email: ann}}
	if mode == relay.ModeRelayTriage {
		sealed, err := e.svc.SealToken(id, e.refresh)
		if err != nil {
			e.t.Fatal(err)
		}
		sc.Gmail.TokenSealed = sealed
	}
	for _, c := range change {
		c(&sc)
	}
	e.apply(sc)
}

// apply runs one configuration operation storing sc.
func (e *env) apply(sc relay.CloudScout) {
	e.t.Helper()
	_, _, err := e.db.ApplyOnce(context.Background(), e.user.ID, "op-"+sc.ID+fmt.Sprint(time.Now().UnixNano()), func(tx *sql.Tx) ([]byte, error) {
		return []byte(`{}`), e.db.UpsertScout(context.Background(), tx, sc)
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) scout(id string) relay.CloudScout {
	e.t.Helper()
	sc, err := e.db.GmailScout(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return sc
}

// sync runs one sync of the scout through trigger, as a push or the poll
// does, and returns its result.
func (e *env) sync(id string, watch bool) error {
	e.t.Helper()
	return e.await(e.svc.trigger(context.Background(), id, watch))
}

// await waits for the result of a sync asked for by trigger.
func (e *env) await(res <-chan error) error {
	e.t.Helper()
	select {
	case err := <-res:
		return err
	case <-time.After(time.Minute):
		e.t.Fatal("no sync result within a minute")
		return nil
	}
}

// nextSynced waits for the service to report a finished sync.
func (e *env) nextSynced() synced {
	e.t.Helper()
	select {
	case s := <-e.synced:
		return s
	case <-time.After(time.Minute):
		e.t.Fatal("no sync finished within a minute")
		return synced{}
	}
}

// nextFrame waits for the next frame of type typ sent to a desktop.
func (e *env) nextFrame(typ string) frame {
	e.t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case f := <-e.frames:
			if f.typ == typ {
				return f
			}
		case <-deadline:
			e.t.Fatalf("no %s frame within a minute", typ)
			return frame{}
		}
	}
}

func (e *env) deliver(subject, from string) string {
	e.t.Helper()
	raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello.\r\n", from, ann, subject)
	id, _, err := e.gmail.Deliver(ann, []byte(raw))
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// gate passes requests to the fake Gmail, except that while holding it
// keeps the requests whose path ends with hold until released, announcing
// each on arrived. served fires after every answered request.
type gate struct {
	next   http.Handler
	served wake.Wake

	mu      sync.Mutex
	hold    string
	release chan struct{}
	arrived chan string
}

// holdOn starts holding requests to paths ending with suffix.
func (g *gate) holdOn(suffix string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hold, g.release, g.arrived = suffix, make(chan struct{}), make(chan string, 100)
}

// open lets held requests, and all later ones, through.
func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold != "" {
		close(g.release)
	}
	g.hold = ""
}

// waitHeld waits until a request is held.
func (g *gate) waitHeld(t *testing.T) string {
	t.Helper()
	g.mu.Lock()
	arrived := g.arrived
	g.mu.Unlock()
	select {
	case p := <-arrived:
		return p
	case <-time.After(time.Minute):
		t.Fatal("no request reached Gmail within a minute")
		return ""
	}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer g.served.Fire()
	g.mu.Lock()
	held := g.hold != "" && strings.HasSuffix(r.URL.Path, g.hold)
	release, arrived := g.release, g.arrived
	g.mu.Unlock()
	if held {
		arrived <- r.URL.Path
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// logWatch keeps the service's JSON log records and fires after each.
type logWatch struct {
	mu      sync.Mutex
	records []map[string]any
	added   wake.Wake
}

func (l *logWatch) Write(p []byte) (int, error) {
	var rec map[string]any
	if err := json.Unmarshal(p, &rec); err == nil {
		l.mu.Lock()
		l.records = append(l.records, rec)
		l.mu.Unlock()
		l.added.Fire()
	}
	return len(p), nil
}

func (l *logWatch) has(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.records {
		if r["msg"] == msg {
			return true
		}
	}
	return false
}

// waitLog waits until the service has logged msg.
func (l *logWatch) waitLog(t *testing.T, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := wake.Until(ctx, func() bool { return l.has(msg) }, l.added.Next); err != nil {
		t.Fatalf("the service did not log %q within a minute", msg)
	}
}
