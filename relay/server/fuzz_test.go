package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"golang.org/x/crypto/nacl/box"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/store/storetest"
)

// The fuzz targets of the relay's inputs from outside through its
// transport: webhook bodies and the desktop's scout configurations (the
// Pub/Sub push's decoder is fuzzed in relay/service). `make fuzz` runs
// each briefly; plain `go test` runs their seeds and the crashers kept in
// testdata/fuzz.

// fuzzRelay is a relay over a real database with one user, one connected
// device (whose private key the test holds) and one webhook scout.
type fuzzRelay struct {
	db        *relaydb.DB
	srv       *Server
	dev       relay.Device
	devToken  string
	pub, priv *[32]byte
	scoutID   string
	hookToken string
	seq       int64 // the last queued row seen
	ops       int   // configuration operations sent, for their ids
}

// newFuzzRelay opens a relay on dsn: a SQLite path or a postgres:// URL.
func newFuzzRelay(tb testing.TB, dsn string) *fuzzRelay {
	tb.Helper()
	ctx := context.Background()
	db, err := relaydb.Open(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.AddUser(ctx, "ann@example.com"); err != nil {
		tb.Fatal(err)
	}
	dev, devToken, err := db.AddDevice(ctx, "ann@example.com", "laptop")
	if err != nil {
		tb.Fatal(err)
	}
	pub, priv, err := box.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.DeviceConnected(ctx, dev.ID, pub[:], ""); err != nil {
		tb.Fatal(err)
	}
	r := &fuzzRelay{db: db, dev: dev, devToken: devToken, pub: pub, priv: priv, scoutID: "sc_hook", hookToken: "hook-token-of-the-fuzz-scout"}
	_, _, err = db.ApplyOnce(ctx, dev.UserID, "op_setup", func(tx *sql.Tx) ([]byte, error) {
		return []byte("{}"), db.UpsertScout(ctx, tx, relay.CloudScout{ID: r.scoutID, UserID: dev.UserID, Kind: relay.KindWebhook,
			Name: "Hooks", Enabled: true, HookTokenHash: relaydb.HashToken(r.hookToken)})
	})
	if err != nil {
		tb.Fatal(err)
	}
	// Gmail scouts in relay-ping mode only: without token keys nothing
	// the relay runs would call Google.
	gmail := gmailscout.New(gmailscout.Config{DB: db, Topic: "projects/scouts-test/topics/gmail"})
	// Frames are not rate limited here: the fuzzer sends them as fast as
	// the relay answers.
	svc := service.New(service.Config{DB: db, PublicURL: "https://relay.example.com", Gmail: gmail})
	r.srv = New(Config{Service: svc, Heartbeat: time.Hour, FrameRate: 1e9, FrameBurst: 1 << 30})
	return r
}

// dial opens the device's session, as its desktop does.
func (r *fuzzRelay) dial(tb testing.TB) *websocket.Conn {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hs := httptest.NewServer(r.srv.Handler())
	go r.srv.Run(ctx)
	tb.Cleanup(func() {
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		r.srv.Shutdown(sctx)
		c()
		hs.Close()
		cancel()
	})
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	c, _, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/api/v1/device", nil)
	if err != nil {
		tb.Fatal(err)
	}
	c.SetReadLimit(protocol.MaxFrameBytes)
	tb.Cleanup(func() { c.CloseNow() })
	hello, _ := protocol.Encode(protocol.TypeHello, "", 0, protocol.Hello{Token: r.devToken, Protocol: protocol.Version, PublicKey: r.pub[:]})
	if err := c.Write(dctx, websocket.MessageText, hello); err != nil {
		tb.Fatal(err)
	}
	_, b, err := c.Read(dctx)
	if f, derr := protocol.Decode(b); err != nil || derr != nil || f.Type != protocol.TypeWelcome {
		tb.Fatalf("welcome: %s %v %v", b, err, derr)
	}
	return c
}

// post sends a webhook body to the scout and returns the answer.
func (r *fuzzRelay) post(body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/api/v1/hooks/"+r.scoutID, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+r.hookToken)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	r.srv.Handler().ServeHTTP(w, req)
	return w
}

// FuzzWebhookBody posts bodies to a real webhook scout. Exactly one JSON
// object in valid UTF-8 within the size cap may be accepted, and what the
// device opens is what the body says; anything refused gets 400 (413 over
// the cap) with a message, and only for a reason.
func FuzzWebhookBody(f *testing.F) {
	r := newFuzzRelay(f, filepath.Join(f.TempDir(), "relay.db"))
	for _, s := range []string{
		`{"title":"Build failed","body":"main is red","url":"https://ci.example.com/1"}`,
		`{"title":"a"}`, `{"title":"a"} {"title":"b"}`, `{"title":"a"}  ` + "\n", `{"title":"a"}x`, `{"title":"a"}{`,
		`{"title":"caf` + "\xe9" + `"}`, `{"title":"\ud800"}`, `{"title":"é ✓ 日本"}`, `{"title":"a","extra":1}`,
		`{"TITLE":"case","Body":"folded"}`, `{"title":"a","title":"b"}`, `{"title":"   "}`, `{"title":""}`, `{}`, `null`,
		`[{"title":"a"}]`, `"title"`, ``, `{"title":"a","url":"javascript:alert(1)"}`, `{"title":"a","url":"https://"}`,
		`{"title":"a","body":null,"url":null}`, `{"title":` + strconv.Quote(strings.Repeat("t", 1001)) + `}`,
		"\ufeff" + `{"title":"bom"}`,
	} {
		f.Add([]byte(s))
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte) {
		w := r.post(body)
		switch w.Code {
		case http.StatusAccepted:
			var acc HookAccepted
			if err := json.Unmarshal(w.Body.Bytes(), &acc); err != nil || acc.ID == "" {
				t.Fatalf("accepted %q with answer %s", body, w.Body)
			}
			want, ok := oneObject(body)
			if !ok {
				t.Fatalf("accepted %q, which is not one JSON object of title, body and url in valid UTF-8 within %d bytes", body, MaxHookBody)
			}
			rows, err := r.db.Pending(ctx, r.dev.UserID, r.dev.ID, r.seq, 10)
			if err != nil || len(rows) != 1 || rows[0].ID != acc.ID {
				t.Fatalf("accepted %q as %s, queued %d rows after %d (%v)", body, acc.ID, len(rows), r.seq, err)
			}
			r.seq = rows[0].Seq
			plain, ok := box.OpenAnonymous(nil, rows[0].Sealed, r.pub, r.priv)
			if !ok {
				t.Fatalf("accepted %q: the device cannot open what was queued", body)
			}
			var got protocol.WebhookPayload
			if err := json.Unmarshal(plain, &got); err != nil || got != want {
				t.Fatalf("accepted %q: the device opens %+v (%v); the body says %+v", body, got, err, want)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			var e struct{ Code, Error string }
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || strings.TrimSpace(e.Error) == "" {
				t.Fatalf("refused %q with answer %s; want a message", body, w.Body)
			}
			if (w.Code == http.StatusRequestEntityTooLarge) != (len(body) > MaxHookBody) {
				t.Fatalf("body of %d bytes answered %d", len(body), w.Code)
			}
			if p, ok := oneObject(body); ok && service.CheckHookItem(p) == nil {
				t.Fatalf("refused a good body %q: %s", body, e.Error)
			}
		default:
			t.Fatalf("body %q answered %d %s", body, w.Code, w.Body)
		}
	})
}

// oneObject reads a webhook body the plain way: one JSON object in valid
// UTF-8 within the cap, holding title, body and url only.
func oneObject(body []byte) (protocol.WebhookPayload, bool) {
	var p protocol.WebhookPayload
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(body) > MaxHookBody || !utf8.Valid(body) || !json.Valid(body) || len(trimmed) == 0 || trimmed[0] != '{' {
		return p, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return p, false
	}
	for k, v := range fields {
		known := strings.EqualFold(k, "title") || strings.EqualFold(k, "body") || strings.EqualFold(k, "url")
		if !known || (!bytes.Equal(v, []byte("null")) && v[0] != '"') || !keptAsSent(v) {
			return p, false
		}
	}
	return p, json.Unmarshal(body, &p) == nil
}

// keptAsSent reports whether decoding the JSON string raw yields only the
// U+FFFD it spells (raw, or as the escape \ufffd): encoding/json puts one
// in place of each lone surrogate escape, which the relay must refuse.
func keptAsSent(raw json.RawMessage) bool {
	var s string
	if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &s) != nil {
		return true
	}
	// Escaped backslashes first, left to right: "\\ufffd" is no escape.
	plain := strings.ToLower(strings.ReplaceAll(string(raw), `\\`, ""))
	spelled := strings.Count(plain, "\ufffd") + strings.Count(plain, `\ufffd`)
	return strings.Count(s, "\ufffd") == spelled
}

// FuzzScoutConfig sends scout_register, scout_update and scout_disable
// frames with arbitrary data through a device session, to a relay on
// SQLite and one on PostgreSQL (when the test server answers, and always
// in CI): what one database stores, the other may refuse. Each frame gets
// one config_result: a refusal says why with a configuration error code —
// bad input is never an internal error — and an acceptance is what the
// relay then holds. Each relay starts with a webhook scout, sc_hook, and a
// Gmail scout, sc_mail, for inputs to change.
func FuzzScoutConfig(f *testing.F) {
	dsns := []string{filepath.Join(f.TempDir(), "relay.db")}
	if postgresReachable() {
		dsns = append(dsns, storetest.PostgresDSN(f))
	}
	hash := relaydb.HashToken("a-webhook-token")
	for _, c := range []struct {
		op   uint8
		data string
	}{
		{0, `{"scout_id":"sc_01","kind":"webhook","name":"CI alerts","enabled":true,"hook_token_hash":"` + hash + `"}`},
		{1, `{"scout_id":"sc_hook","kind":"webhook","name":"CI alerts (prod)","enabled":true}`},
		{1, `{"scout_id":"sc_hook","kind":"webhook","name":"rotated","enabled":true,"hook_token_hash":"` + hash + `"}`},
		{2, `{"scout_id":"sc_hook"}`},
		{0, `{"scout_id":"sc_02","kind":"gmail","name":"Work mail","enabled":true,"email":"ann@example.com","mode":"relay-ping","rules":[{"id":"shops","action":"deny","domains":["shop.example"]}],"baseline_history_id":"987600","created_at":"2026-11-22T09:30:00Z"}`},
		{0, `{"scout_id":"sc_03","kind":"gmail","name":"Triage","enabled":true,"email":"ann@example.com","mode":"relay-triage","refresh_token":"1//x"}`},
		{1, `{"scout_id":"sc_mail","kind":"gmail","name":"Work mail","enabled":false,"email":"ann@example.com","mode":"relay-ping","inactivity_pause_days":400}`},
		{1, `{"scout_id":"sc_mail","kind":"gmail","name":"Work mail","enabled":true,"email":"bob@example.com","mode":"relay-ping","auto_trash_spam":true}`},
		{0, `{"scout_id":"sc_04","kind":"gmail","name":"x","email":"ann@example.com","mode":"relay-ping","baseline_history_id":"-1"}`},
		{0, `{"scout_id":"sc_05","kind":"gmail","name":"x","email":"ann@example.com","mode":"relay-ping","rules":[{"id":"a","action":"maybe"}]}`},
		{0, `{"scout_id":"sc_06","kind":"webhook","name":"short hash","hook_token_hash":"ab"}`},
		{0, `{"scout_id":"sc_07","kind":"folder","name":"x"}`}, {0, `{"scout_id":"","kind":"webhook","name":"x"}`},
		{0, `{"scout_id":"sc_08","kind":"webhook","name":""}`},
		{2, `{"scout_id":"sc_missing"}`}, {2, `{}`}, {0, `null`}, {1, `[]`}, {2, `"sc_01"`}, {0, ``},
	} {
		f.Add(c.op, []byte(c.data))
	}
	var checks []func(t *testing.T, typ string, data []byte)
	for _, dsn := range dsns {
		checks = append(checks, configChecker(f, newFuzzRelay(f, dsn), hash))
	}
	types := []string{protocol.TypeScoutRegister, protocol.TypeScoutUpdate, protocol.TypeScoutDisable}
	f.Fuzz(func(t *testing.T, op uint8, data []byte) {
		typ := types[int(op)%len(types)]
		for _, check := range checks {
			check(t, typ, data)
		}
	})
}

// configChecker opens r's device session and registers sc_hook and
// sc_mail; it returns the check of one configuration frame on r.
func configChecker(f *testing.F, r *fuzzRelay, hash string) func(t *testing.T, typ string, data []byte) {
	conn := r.dial(f)
	ctx := context.Background()
	send := func(t testing.TB, typ string, data []byte) (res protocol.ConfigResult, sent bool) {
		r.ops++
		id := fmt.Sprintf("op_%d", r.ops)
		frame := fmt.Appendf(nil, `{"v":1,"type":%q,"id":%q,"data":%s}`, typ, id, data)
		if _, err := protocol.Decode(frame); err != nil {
			return res, false // not a frame: FuzzDecode's ground
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := conn.Write(wctx, websocket.MessageText, frame); err != nil {
			t.Fatalf("%s: %s %s: the session ended: %v", r.db.Dialect(), typ, data, err)
		}
		for {
			_, b, err := conn.Read(wctx)
			if err != nil {
				t.Fatalf("%s: %s %s: no answer: %v", r.db.Dialect(), typ, data, err)
			}
			g, err := protocol.Decode(b)
			if err != nil {
				t.Fatalf("%s: %s %s: the relay sent %q: %v", r.db.Dialect(), typ, data, b, err)
			}
			if g.Type == protocol.TypeError {
				t.Fatalf("%s: %s %s: answered with an error frame %s", r.db.Dialect(), typ, data, b)
			}
			if g.Type != protocol.TypeConfigResult {
				continue // pings, a scout's status
			}
			if g.ID != id || g.DecodeData(&res) != nil {
				t.Fatalf("%s: %s %s: answered %s", r.db.Dialect(), typ, data, b)
			}
			return res, true
		}
	}
	for _, c := range []string{
		`{"scout_id":"sc_hook","kind":"webhook","name":"Hooks","enabled":true,"hook_token_hash":"` + hash + `"}`,
		`{"scout_id":"sc_mail","kind":"gmail","name":"Mail","enabled":true,"email":"ann@example.com","mode":"relay-ping"}`,
	} {
		if res, _ := send(f, protocol.TypeScoutRegister, []byte(c)); !res.OK {
			f.Fatalf("register %s: %+v", c, res.Error)
		}
	}
	return func(t *testing.T, typ string, data []byte) {
		res, sent := send(t, typ, data)
		if !sent {
			return
		}
		if !res.OK {
			if res.Error == nil || strings.TrimSpace(res.Error.Message) == "" || !utf8.ValidString(res.Error.Message) {
				t.Fatalf("%s: %s %s: refused without a message: %+v", r.db.Dialect(), typ, data, res)
			}
			switch res.Error.Code {
			case protocol.CodeBadFrame, protocol.CodeInvalidConfig, protocol.CodeScoutNotFound, protocol.CodeScoutForbidden:
			default:
				t.Fatalf("%s: %s %s: refused with code %d: %s", r.db.Dialect(), typ, data, res.Error.Code, res.Error.Message)
			}
			return
		}
		stored, err := r.db.Scout(ctx, res.ScoutID)
		if err != nil || stored.UserID != r.dev.UserID {
			t.Fatalf("%s: %s %s: accepted, but scout %q is not the user's: %+v, %v", r.db.Dialect(), typ, data, res.ScoutID, stored, err)
		}
		if typ == protocol.TypeScoutDisable {
			if stored.Enabled {
				t.Fatalf("%s: %s %s: accepted, but the scout is still enabled", r.db.Dialect(), typ, data)
			}
			return
		}
		var cfg protocol.ScoutConfig
		json.Unmarshal(data, &cfg)
		if stored.ID != cfg.ScoutID || stored.Kind != cfg.Kind || stored.Name != cfg.Name || stored.Enabled != cfg.Enabled {
			t.Fatalf("%s: %s %s: accepted, but the relay holds %+v", r.db.Dialect(), typ, data, stored)
		}
		if (stored.Kind == relay.KindWebhook) != (res.HookURL != "") || (stored.Kind == relay.KindGmail) != (res.PushTopic != "") {
			t.Fatalf("%s: %s %s: answered %+v for a %s scout", r.db.Dialect(), typ, data, res, stored.Kind)
		}
		// A webhook's hash is what its token is checked against: anything
		// but a hex SHA-256 would refuse every post from then on.
		if h := stored.HookTokenHash; stored.Kind == relay.KindWebhook && (len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "") {
			t.Fatalf("%s: %s %s: accepted, and the webhook's token hash is now %q", r.db.Dialect(), typ, data, h)
		}
	}
}

// postgresReachable reports whether the PostgreSQL test server answers;
// in CI it must, and storetest fails the test if it does not.
func postgresReachable() bool {
	if os.Getenv("CI") == "true" {
		return true
	}
	dsn := os.Getenv("SCOUTS_TEST_POSTGRES")
	if dsn == "" {
		dsn = storetest.DefaultPostgres
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return db.PingContext(ctx) == nil
}
