package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/service"
)

// Idle sessions wait in the parker without a goroutine each, wake up when
// their device sends something, and can still be closed with their code
// (a revocation) while parked; once none is parked, the parker lets go of
// its epoll set.
func TestIdleSessionsHoldNoGoroutine(t *testing.T) {
	const devices = 20
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := relaydb.Open(ctx, filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.AddUser(ctx, "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	var tokens, ids []string
	for i := range devices {
		dv, tok, err := db.AddDevice(ctx, "ann@example.com", fmt.Sprint("d", i))
		if err != nil {
			t.Fatal(err)
		}
		tokens, ids = append(tokens, tok), append(ids, dv.ID)
	}
	// No heartbeat during the test: a ping would wake sessions up.
	srv := New(Config{Service: service.New(service.Config{DB: db}), Heartbeat: time.Hour, RevocationPoll: 20 * time.Millisecond})
	srv.parker.changed = make(chan struct{}, 1)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	go srv.Run(ctx)

	waitParked := func(want int) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for srv.parker.count() != want {
			select {
			case <-srv.parker.changed:
			case <-deadline:
				t.Fatalf("%d sessions parked, want %d", srv.parker.count(), want)
			}
		}
	}
	readers := func() int {
		buf := make([]byte, 1<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "(*session).readFrames")
	}

	conns := make([]*websocket.Conn, devices)
	for i, tok := range tokens {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/api/v1/device", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		keys, _ := client.DeviceKeys(tok)
		hello, _ := protocol.Encode(protocol.TypeHello, "", 0, protocol.Hello{Token: tok, Protocol: 1, PublicKey: keys.Public[:]})
		if err := c.Write(ctx, websocket.MessageText, hello); err != nil {
			t.Fatal(err)
		}
		if f := read(t, c); f.Type != protocol.TypeWelcome {
			t.Fatalf("device %d: %s, want welcome", i, f.Type)
		}
		conns[i] = c
	}
	waitParked(devices)
	if n := readers(); n != 0 {
		t.Fatalf("%d reader goroutines for %d idle sessions, want none", n, devices)
	}

	// Each device pings a few times: each frame wakes its session, which
	// answers and parks again.
	for round := range 3 {
		for i, c := range conns {
			ping, _ := protocol.Encode(protocol.TypePing, "", 0, protocol.Ping{T: int64(round)})
			if err := c.Write(ctx, websocket.MessageText, ping); err != nil {
				t.Fatal(err)
			}
			if f := read(t, c); f.Type != protocol.TypePong {
				t.Fatalf("device %d, round %d: %s, want pong", i, round, f.Type)
			}
		}
	}
	waitParked(devices)

	// Revoked while parked: closed with its code, and out of the set.
	if err := db.RevokeDevice(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	_, _, err = conns[0].Read(rctx)
	rcancel()
	if websocket.CloseStatus(err) != protocol.CloseRevoked {
		t.Fatalf("revoked while parked: %v, want close %d", err, protocol.CloseRevoked)
	}
	waitParked(devices - 1)

	// A device that leaves while parked: the session ends.
	conns[1].Close(websocket.StatusNormalClosure, "")
	waitParked(devices - 2)

	// The devices answer the shutdown's close handshake.
	for _, c := range conns[2:] {
		go c.Read(ctx)
	}
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	srv.Shutdown(sctx)
	waitParked(0)
	deadline := time.After(10 * time.Second)
	for {
		srv.parker.mu.Lock()
		open := srv.parker.epfd >= 0
		srv.parker.mu.Unlock()
		if !open {
			break
		}
		select {
		case <-srv.parker.changed:
		case <-deadline:
			t.Fatal("the parker kept its epoll set with no session parked")
		}
	}
}

func read(t *testing.T, c *websocket.Conn) protocol.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := protocol.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
