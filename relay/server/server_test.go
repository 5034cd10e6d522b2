package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/store/storetest"
)

type env struct {
	t      testing.TB
	db     *relaydb.DB
	dbPath string
	srv    *server.Server
	http   *httptest.Server
	token  string
	user   string
	dev    string
}

func newEnv(t testing.TB, cfg server.Config) *env {
	return newEnvWith(t, func(*relaydb.DB, *env) server.Config { return cfg })
}

// newEnvWith builds the server's configuration once the database exists
// (a Gmail service needs it); e's server is set before anything runs.
func newEnvWith(t testing.TB, config func(db *relaydb.DB, e *env) server.Config) *env {
	t.Helper()
	return newEnvOn(t, filepath.Join(t.TempDir(), "relay.db"), config)
}

// newEnvOn is newEnvWith on a given database: a SQLite path or a
// postgres:// URL.
func newEnvOn(t testing.TB, dbPath string, config func(db *relaydb.DB, e *env) server.Config) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := relaydb.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := db.AddUser(ctx, "ann@example.com")
	dv, tok, _ := db.AddDevice(ctx, "ann@example.com", "laptop")
	e := &env{t: t, db: db, dbPath: dbPath, token: tok, user: u.ID, dev: dv.ID}
	cfg := config(db, e)
	if cfg.Service == nil {
		cfg.Service = service.New(service.Config{DB: db, Logger: cfg.Logger})
	}
	e.srv = server.New(cfg)
	e.http = httptest.NewServer(e.srv.Handler())
	go e.srv.Run(ctx)
	t.Cleanup(func() {
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		e.srv.Shutdown(sctx)
		c()
		e.http.Close()
		cancel()
		db.Close()
	})
	return e
}

// raw is a hand-driven device connection, for misbehaving on purpose.
type raw struct {
	t testing.TB
	c *websocket.Conn
}

func (e *env) dial() *raw {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.http.URL, "http")+"/api/v1/device", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	c.SetReadLimit(protocol.MaxFrameBytes)
	e.t.Cleanup(func() { c.CloseNow() })
	return &raw{t: e.t, c: c}
}

func (r *raw) send(typ, id string, data any) {
	r.t.Helper()
	b, _ := protocol.Encode(typ, id, 0, data)
	if err := r.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		r.t.Fatal(err)
	}
}

// recv reads the next frame, skipping pings; err is the connection's end.
func (r *raw) recv() (protocol.Frame, error) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, b, err := r.c.Read(ctx)
		cancel()
		if err != nil {
			return protocol.Frame{}, err
		}
		f, err := protocol.Decode(b)
		if err != nil {
			r.t.Fatal(err)
		}
		if f.Type != protocol.TypePing {
			return f, nil
		}
	}
}

func (r *raw) hello(token string, last int64) protocol.Welcome {
	r.t.Helper()
	keys, _ := client.DeviceKeys(token)
	r.send(protocol.TypeHello, "", protocol.Hello{Token: token, Protocol: 1, LastAckedSeq: last, PublicKey: keys.Public[:]})
	f, err := r.recv()
	if err != nil || f.Type != protocol.TypeWelcome {
		r.t.Fatalf("welcome: %+v %v", f, err)
	}
	var w protocol.Welcome
	f.DecodeData(&w)
	return w
}

func errorFrame(t *testing.T, f protocol.Frame) protocol.Error {
	t.Helper()
	if f.Type != protocol.TypeError {
		t.Fatalf("got %s, want error", f.Type)
	}
	var pe protocol.Error
	f.DecodeData(&pe)
	return pe
}

func TestHandshakeRefusals(t *testing.T) {
	e := newEnv(t, server.Config{})
	r := e.dial()
	r.send(protocol.TypePing, "", protocol.Ping{T: 1})
	f, _ := r.recv()
	if pe := errorFrame(t, f); pe.Code != protocol.CodeHelloRequired || !pe.Fatal {
		t.Fatalf("no hello: %+v", pe)
	}
	r = e.dial()
	r.send(protocol.TypeHello, "", protocol.Hello{Token: "sdt_nope", Protocol: 1, PublicKey: make([]byte, 32)})
	f, _ = r.recv()
	if pe := errorFrame(t, f); pe.Code != protocol.CodeUnauthorized {
		t.Fatalf("bad token: %+v", pe)
	}
	if _, err := r.recv(); websocket.CloseStatus(err) != protocol.CloseUnauthorized {
		t.Fatalf("bad token close: %v", err)
	}
	r = e.dial()
	r.send(protocol.TypeHello, "", protocol.Hello{Token: e.token, Protocol: 99, PublicKey: make([]byte, 32)})
	f, _ = r.recv()
	if pe := errorFrame(t, f); pe.Code != protocol.CodeUnsupportedVersion {
		t.Fatalf("protocol 99: %+v", pe)
	}
	e.db.RevokeDevice(context.Background(), e.dev)
	r = e.dial()
	keys, _ := client.DeviceKeys(e.token)
	r.send(protocol.TypeHello, "", protocol.Hello{Token: e.token, Protocol: 1, PublicKey: keys.Public[:]})
	f, _ = r.recv()
	if pe := errorFrame(t, f); pe.Code != protocol.CodeDeviceRevoked {
		t.Fatalf("revoked: %+v", pe)
	}
	if _, err := r.recv(); websocket.CloseStatus(err) != protocol.CloseRevoked {
		t.Fatalf("revoked close: %v", err)
	}
}

func TestDeadPeerIsDropped(t *testing.T) {
	e := newEnv(t, server.Config{Heartbeat: 50 * time.Millisecond})
	r := e.dial()
	r.hello(e.token, 0)
	// Read nothing, answer nothing: the relay's pings go unanswered and,
	// after three silent heartbeats, it closes the session.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, _, err := r.c.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("the relay kept a silent peer for 10s")
			}
			// The peer is told why, if it still listens: going away.
			if websocket.CloseStatus(err) != websocket.StatusGoingAway {
				t.Fatalf("silent peer dropped with %v, want close 1001", err)
			}
			return
		}
		// pings arrive; we stay silent
	}
}

func TestBadFramesAndLimits(t *testing.T) {
	e := newEnv(t, server.Config{FrameRate: 1, FrameBurst: 20})
	r := e.dial()
	r.hello(e.token, 0)
	// An unknown frame type is answered, not fatal.
	r.send("from_the_future", "", map[string]int{"x": 1})
	f, _ := r.recv()
	if pe := errorFrame(t, f); pe.Code != protocol.CodeUnknownType || pe.Fatal {
		t.Fatalf("unknown type: %+v", pe)
	}
	r.c.Write(context.Background(), websocket.MessageText, []byte("not json"))
	f, _ = r.recv()
	if pe := errorFrame(t, f); pe.Code != protocol.CodeBadFrame {
		t.Fatalf("bad JSON: %+v", pe)
	}
	r.send(protocol.TypePing, "", protocol.Ping{T: 42})
	if f, _ := r.recv(); f.Type != protocol.TypePong {
		t.Fatalf("after bad frames the session is gone: %+v", f)
	}
	// A flood trips the rate limit: a fatal error, then a policy close.
	for range 40 {
		r.send(protocol.TypePing, "", protocol.Ping{T: 1})
	}
	var err error
	sawLimit := false
	for err == nil {
		f, err = r.recv()
		if err == nil && f.Type == protocol.TypeError {
			pe := errorFrame(t, f)
			sawLimit = sawLimit || pe.Code == protocol.CodeRateLimited
		}
	}
	if !sawLimit || websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("flood: rate-limit error seen=%v, close %v", sawLimit, err)
	}

	// A frame over the size limit ends the connection.
	r = e.dial()
	r.hello(e.token, 0)
	r.c.Write(context.Background(), websocket.MessageText, []byte(`{"v":1,"type":"ping","data":"`+strings.Repeat("x", protocol.MaxFrameBytes)+`"}`))
	if _, err := r.recv(); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("huge frame: %v", err)
	}
}

func TestWindowBoundsUnackedFrames(t *testing.T) {
	e := newEnv(t, server.Config{Window: 4})
	ctx := context.Background()
	r := e.dial()
	r.hello(e.token, 0)
	// A scout to queue into, registered through the protocol.
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_1", Kind: "webhook", Name: "hook", Enabled: true, HookTokenHash: strings.Repeat("a", 64)})
	f, _ := r.recv()
	var res protocol.ConfigResult
	f.DecodeData(&res)
	if f.Type != protocol.TypeConfigResult || !res.OK || f.ID != "op-1" {
		t.Fatalf("register: %+v %+v", f, res)
	}
	for range 10 {
		if _, _, err := e.db.Enqueue(ctx, relaydb.NewItem{UserID: e.user, ScoutID: "sc_1", SourceType: "webhook", Verdict: "relevant"}); err != nil {
			t.Fatal(err)
		}
	}
	var seqs []int64
	for len(seqs) < 4 {
		f, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		if f.Type == protocol.TypeProposal {
			seqs = append(seqs, f.Seq)
		}
	}
	// Nothing more until we acknowledge: a ping's pong is the next frame.
	r.send(protocol.TypePing, "", protocol.Ping{T: 7})
	if f, _ := r.recv(); f.Type != protocol.TypePong {
		t.Fatalf("the relay sent %s beyond the window of 4", f.Type)
	}
	r.send(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: seqs[:2]})
	for n := 0; n < 2; {
		f, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		if f.Type == protocol.TypeProposal {
			if f.Seq != int64(5+n) {
				t.Fatalf("after the ack got seq %d, want %d", f.Seq, 5+n)
			}
			n++
		}
	}
	// A replayed configuration operation gets the first answer.
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_other", Kind: "webhook", Name: "x", HookTokenHash: strings.Repeat("b", 64)})
	for {
		f, _ := r.recv()
		if f.Type == protocol.TypeConfigResult {
			f.DecodeData(&res)
			if res.ScoutID != "sc_1" {
				t.Fatalf("replayed op-1 answered for %s", res.ScoutID)
			}
			break
		}
	}
}

func TestConfigOpsCannotTouchAnotherUsersScout(t *testing.T) {
	e := newEnv(t, server.Config{})
	ctx := context.Background()
	e.db.AddUser(ctx, "bob@example.com")
	_, bobTok, _ := e.db.AddDevice(ctx, "bob@example.com", "bob")
	ann := e.dial()
	ann.hello(e.token, 0)
	ann.send(protocol.TypeScoutRegister, "a1", protocol.ScoutConfig{ScoutID: "sc_ann", Kind: "webhook", Name: "ann", Enabled: true, HookTokenHash: strings.Repeat("a", 64)})
	ann.recv()
	bob := e.dial()
	bob.hello(bobTok, 0)
	for _, typ := range []string{protocol.TypeScoutUpdate, protocol.TypeScoutDisable} {
		var data any = protocol.ScoutConfig{ScoutID: "sc_ann", Kind: "webhook", Name: "mine"}
		if typ == protocol.TypeScoutDisable {
			data = protocol.ScoutDisable{ScoutID: "sc_ann"}
		}
		bob.send(typ, "b-"+typ, data)
		f, _ := bob.recv()
		var res protocol.ConfigResult
		f.DecodeData(&res)
		if res.OK || res.Error == nil {
			t.Fatalf("%s of ann's scout by bob: %+v", typ, res)
		}
	}
	sc, _ := e.db.Scout(ctx, "sc_ann")
	if !sc.Enabled || sc.Name != "ann" {
		t.Fatalf("ann's scout changed: %+v", sc)
	}
}

func relayScout(userID string) relay.CloudScout {
	return relay.CloudScout{ID: "sc_bench", UserID: userID, Kind: relay.KindWebhook, Name: "bench", Enabled: true, HookTokenHash: strings.Repeat("a", 64)}
}

// A desktop acknowledging each item as it arrives must not trip the rate
// limit, however fast items come: acknowledgements of what the relay sent
// are bounded by the relay itself.
func TestAcksOfDeliveredRowsAreNotRateLimited(t *testing.T) {
	e := newEnv(t, server.Config{FrameRate: 1, FrameBurst: 5, Window: 100})
	ctx := context.Background()
	r := e.dial()
	r.hello(e.token, 0)
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_1", Kind: "webhook", Name: "hook", Enabled: true, HookTokenHash: strings.Repeat("a", 64)})
	r.recv()
	for range 50 {
		e.db.Enqueue(ctx, relaydb.NewItem{UserID: e.user, ScoutID: "sc_1", SourceType: "webhook", Verdict: "relevant"})
	}
	for n := 0; n < 50; {
		f, err := r.recv()
		if err != nil {
			t.Fatalf("connection ended after %d acks: %v", n, err)
		}
		if f.Type == protocol.TypeError {
			t.Fatalf("after %d acks: %+v", n, errorFrame(t, f))
		}
		if f.Type == protocol.TypeProposal {
			r.send(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: []int64{f.Seq}})
			n++
		}
	}
	// Acks of sequences never sent are not free: a flood of them is cut off.
	var err error
	for i := 0; err == nil && i < 100; i++ {
		b, _ := protocol.Encode(protocol.TypeProposalAck, "", 0, protocol.ProposalAck{Seqs: []int64{int64(1000 + i)}})
		err = r.c.Write(ctx, websocket.MessageText, b)
	}
	for err == nil {
		_, err = r.recv()
	}
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("bogus acks: %v", err)
	}
}

// A desktop that committed proposals but lost the connection before its
// acks reached the relay names them in its next hello: the relay counts
// them acknowledged, drops their sealed content, and its queue metrics
// show no backlog that does not exist.
func TestHelloTakesAcksLostWithTheConnection(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "relay.db")
			if backend == "postgres" {
				dsn = storetest.PostgresDSN(t)
			}
			e := newEnvOn(t, dsn, func(*relaydb.DB, *env) server.Config { return server.Config{} })
			ctx := context.Background()
			r := e.dial()
			r.hello(e.token, 0)
			r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_1", Kind: "webhook", Name: "hook", Enabled: true, HookTokenHash: strings.Repeat("a", 64)})
			if f, _ := r.recv(); f.Type != protocol.TypeConfigResult {
				t.Fatalf("register: %+v", f)
			}
			for range 5 {
				if _, _, err := e.db.Enqueue(ctx, relaydb.NewItem{UserID: e.user, ScoutID: "sc_1", SourceType: "webhook", Verdict: "relevant",
					Sealed: map[string][]byte{e.dev: []byte("sealed")}}); err != nil {
					t.Fatal(err)
				}
			}
			for n := 0; n < 5; {
				f, err := r.recv()
				if err != nil {
					t.Fatal(err)
				}
				if f.Type == protocol.TypeProposal {
					n++
				}
			}
			// The desktop committed all five, then the connection died
			// before a single ack went out.
			r.c.CloseNow()

			r = e.dial()
			r.hello(e.token, 5)
			depth, err := e.db.QueueDepth(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if depth[relay.StatusAcked] != 5 || depth[relay.StatusQueued]+depth[relay.StatusDelivered] != 0 {
				t.Fatalf("after the hello that covers them: %v, want all 5 acked", depth)
			}
			rows, _ := e.db.Pending(ctx, e.user, e.dev, 0, 10)
			for _, row := range rows {
				if row.Sealed != nil {
					t.Fatalf("row %d still holds its sealed content", row.Seq)
				}
			}
			metrics := e.get("/metrics")
			for status, want := range map[string]int{"acked": 5, "delivered": 0, "queued": 0} {
				if line := fmt.Sprintf("scouts_relay_queue_rows{status=%q} %d\n", status, want); !strings.Contains(metrics, line) {
					t.Fatalf("metrics lack %q:\n%s", line, metrics)
				}
			}
		})
	}
}

func (e *env) get(path string) string {
	e.t.Helper()
	res, err := http.Get(e.http.URL + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		e.t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
	}
	return string(b)
}
