package server_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/store/storetest"
)

// configOp sends one configuration operation from the env's device and
// fails the test unless it is applied.
func (e *env) configOp(typ, opID string, cfg protocol.ScoutConfig) {
	e.t.Helper()
	r := e.dial()
	r.hello(e.token, 0)
	r.send(typ, opID, cfg)
	// Items queued before come first.
	f, err := r.recv()
	for err == nil && f.Type == protocol.TypeProposal {
		f, err = r.recv()
	}
	var res protocol.ConfigResult
	if err != nil || f.DecodeData(&res) != nil || !res.OK {
		e.t.Fatalf("%s %s: %+v %+v %v", typ, opID, f, res, err)
	}
	r.c.CloseNow()
}

// connectDevice adds a device to the env's user and says hello with its
// key once, as its desktop would.
func (e *env) connectDevice(name string) (id string, keys client.Keys) {
	e.t.Helper()
	dv, tok, err := e.db.AddDevice(context.Background(), "ann@example.com", name)
	if err != nil {
		e.t.Fatal(err)
	}
	keys, _ = client.DeviceKeys(tok)
	r := e.dial()
	r.send(protocol.TypeHello, "", protocol.Hello{Token: tok, Protocol: 1, PublicKey: keys.Public[:], Seal: []string{protocol.SealBatchV1}})
	if f, err := r.recv(); err != nil || f.Type != protocol.TypeWelcome {
		e.t.Fatalf("welcome: %+v %v", f, err)
	}
	r.c.CloseNow()
	return dv.ID, keys
}

// lastSealed returns the device's copy of the newest queue row (nil: the
// row was not sealed for it).
func lastSealed(t *testing.T, db *relaydb.DB, user, device string) []byte {
	t.Helper()
	rows, err := db.Pending(context.Background(), user, device, 0, 1000)
	if err != nil || len(rows) == 0 {
		t.Fatalf("pending rows: %d, %v", len(rows), err)
	}
	return rows[len(rows)-1].Sealed
}

// A webhook's scout and keys are cached, yet every change to them counts
// from the next request on: a rotated token, a device that connects
// (sealed for) or is revoked (no longer sealed for), a disabled scout.
func TestHookChangesCountFromTheNextRequest(t *testing.T) {
	e := newEnv(t, server.Config{})
	url, token := e.hookScout()
	e.db.SetHookTTL(time.Hour) // only the changes themselves may refresh the cache
	if a := postHook(t, url, token, `{"title":"a"}`); a.status != http.StatusAccepted {
		t.Fatalf("first post: %+v", a)
	}

	const rotated = "hook-secret-2"
	e.configOp(protocol.TypeScoutUpdate, "op-rotate", protocol.ScoutConfig{ScoutID: "sc_hook", Kind: "webhook", Name: "hook", Enabled: true,
		HookTokenHash: relaydb.HashToken(rotated)})
	if a := postHook(t, url, token, `{"title":"b"}`); a.status != http.StatusUnauthorized {
		t.Fatalf("old token after rotation: %+v", a)
	}
	if a := postHook(t, url, rotated, `{"title":"b"}`); a.status != http.StatusAccepted {
		t.Fatalf("new token after rotation: %+v", a)
	}

	dv2, keys2 := e.connectDevice("desktop")
	if a := postHook(t, url, rotated, `{"title":"for two"}`); a.status != http.StatusAccepted {
		t.Fatalf("post after a device connected: %+v", a)
	}
	if p, err := keys2.OpenWebhook(lastSealed(t, e.db, e.user, dv2)); err != nil || p.Title != "for two" {
		t.Fatalf("the new device's copy: %+v, %v", p, err)
	}

	if err := e.db.RevokeDevice(context.Background(), dv2); err != nil {
		t.Fatal(err)
	}
	if a := postHook(t, url, rotated, `{"title":"for one"}`); a.status != http.StatusAccepted {
		t.Fatalf("post after a revocation: %+v", a)
	}
	if s := lastSealed(t, e.db, e.user, dv2); s != nil {
		t.Fatal("an item was sealed for a revoked device")
	}

	e.configOp(protocol.TypeScoutDisable, "op-disable", protocol.ScoutConfig{ScoutID: "sc_hook"})
	if a := postHook(t, url, rotated, `{"title":"c"}`); a.status != http.StatusGone {
		t.Fatalf("post to a disabled scout: %+v", a)
	}
}

// Two relays on one PostgreSQL: a change made through one reaches the
// other's cache by notification (its cache lives an hour here, so nothing
// else can refresh it), and the other answers accordingly.
func TestHookChangesReachTheOtherInstance(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	a := newEnvOn(t, dsn, func(*relaydb.DB, *env) server.Config { return server.Config{} })
	url, token := a.hookScout()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bdb, err := relaydb.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	bdb.SetHookTTL(time.Hour)
	logs := &logLines{}
	blog := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b := server.New(server.Config{Service: service.New(service.Config{DB: bdb, Logger: blog}), Logger: blog})
	bhttp := httptest.NewServer(b.Handler())
	defer bhttp.Close()
	runDone := make(chan struct{})
	go func() { b.Run(ctx); close(runDone) }()
	defer func() { cancel(); <-runDone }()
	burl := bhttp.URL + "/api/v1/hooks/sc_hook"

	// Once b listens for notifications it caches: a change written behind
	// both relays' backs (no notification) is then not seen by b.
	waitOn(t, "the other relay to listen", func() bool { return len(logs.with("listening for notifications from other instances")) > 0 }, logs.added.Next)
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	setHash := func(h string) {
		if _, err := raw.Exec(`UPDATE cloud_scouts SET hook_token_hash = $1 WHERE id = 'sc_hook'`, h); err != nil {
			t.Fatal(err)
		}
	}
	setHash("probe")
	first, _, err := bdb.HookTarget(ctx, "sc_hook")
	if err != nil {
		t.Fatal(err)
	}
	setHash("unnotified")
	if sc, _, err := bdb.HookTarget(ctx, "sc_hook"); err != nil || sc.HookTokenHash != first.HookTokenHash {
		t.Fatalf("the other relay, listening, read %q after an unnotified change (%v): it does not cache", sc.HookTokenHash, err)
	}
	setHash(relaydb.HashToken(token))

	const rotated = "hook-secret-2"
	a.configOp(protocol.TypeScoutUpdate, "op-rotate", protocol.ScoutConfig{ScoutID: "sc_hook", Kind: "webhook", Name: "hook", Enabled: true,
		HookTokenHash: relaydb.HashToken(rotated)})
	waitOn(t, "the rotation to reach the other relay", func() bool {
		sc, _, err := bdb.HookTarget(ctx, "sc_hook")
		return err == nil && sc.HookTokenHash == relaydb.HashToken(rotated)
	}, logs.added.Next)
	if r := postHook(t, burl, token, `{"title":"a"}`); r.status != http.StatusUnauthorized {
		t.Fatalf("old token on the other relay: %+v", r)
	}
	if r := postHook(t, url, rotated, `{"title":"a"}`); r.status != http.StatusAccepted {
		t.Fatalf("new token: %+v", r)
	}

	dv2, keys2 := a.connectDevice("desktop")
	waitOn(t, "the new device to reach the other relay", func() bool {
		_, keys, err := bdb.HookTarget(ctx, "sc_hook")
		_, ok := keys[dv2]
		return err == nil && ok
	}, logs.added.Next)
	if r := postHook(t, burl, rotated, `{"title":"for two"}`); r.status != http.StatusAccepted {
		t.Fatalf("post to the other relay after a device connected: %+v", r)
	}
	if p, err := keys2.OpenWebhook(lastSealed(t, bdb, a.user, dv2)); err != nil || p.Title != "for two" {
		t.Fatalf("the new device's copy: %+v, %v", p, err)
	}

	if err := a.db.RevokeDevice(ctx, dv2); err != nil {
		t.Fatal(err)
	}
	waitOn(t, "the revocation to reach the other relay", func() bool {
		_, keys, err := bdb.HookTarget(ctx, "sc_hook")
		_, ok := keys[dv2]
		return err == nil && !ok
	}, logs.added.Next)
	if r := postHook(t, burl, rotated, `{"title":"for one"}`); r.status != http.StatusAccepted {
		t.Fatalf("post to the other relay after a revocation: %+v", r)
	}
	if s := lastSealed(t, bdb, a.user, dv2); s != nil {
		t.Fatal("the other relay sealed an item for a revoked device")
	}

	a.configOp(protocol.TypeScoutDisable, "op-disable", protocol.ScoutConfig{ScoutID: "sc_hook"})
	waitOn(t, "the disabling to reach the other relay", func() bool {
		sc, _, err := bdb.HookTarget(ctx, "sc_hook")
		return err == nil && !sc.Enabled
	}, logs.added.Next)
	if r := postHook(t, burl, rotated, `{"title":"c"}`); r.status != http.StatusGone {
		t.Fatalf("post to a disabled scout on the other relay: %+v", r)
	}
	depth, err := bdb.QueueDepth(ctx)
	if err != nil || depth[relay.StatusQueued]+depth[relay.StatusDelivered] != 3 {
		t.Fatalf("queued rows: %v, %v", depth, err)
	}
}
