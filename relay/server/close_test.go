package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/server"
)

// A device revoked while connected is told so by the close code (4001),
// not left to guess from a bare end of stream.
func TestRevokedSessionIsClosedWith4001(t *testing.T) {
	e := newEnv(t, server.Config{RevocationPoll: 20 * time.Millisecond})
	r := e.dial()
	r.hello(e.token, 0)
	if err := e.db.RevokeDevice(context.Background(), e.dev); err != nil {
		t.Fatal(err)
	}
	_, err := r.recv()
	if websocket.CloseStatus(err) != protocol.CloseRevoked {
		t.Fatalf("revoked while connected: %v, want close %d", err, protocol.CloseRevoked)
	}
}

// statesHandler is a desktop that records the client's connection states.
type statesHandler struct {
	states chan client.State
}

func (h *statesHandler) LastAcked(context.Context) (int64, error)                    { return 0, nil }
func (h *statesHandler) Commit(context.Context, []client.Item) error                 { return nil }
func (h *statesHandler) PendingOps(context.Context) ([]client.Op, error)             { return nil, nil }
func (h *statesHandler) OpDone(context.Context, string, protocol.ConfigResult) error { return nil }
func (h *statesHandler) ScoutStatus(context.Context, protocol.ScoutStatus)           {}
func (h *statesHandler) MailboxChanged(context.Context, protocol.MailboxChanged)     {}
func (h *statesHandler) State(st client.State)                                       { h.states <- st }

// The desktop's client learns of its revocation from the close itself: it
// goes from online straight to revoked and stops, without waiting to be
// refused at its next handshake.
func TestDesktopClientReportsRevokedAtOnce(t *testing.T) {
	e := newEnv(t, server.Config{RevocationPoll: 20 * time.Millisecond})
	h := &statesHandler{states: make(chan client.State, 64)}
	// A reconnection would wait an hour: "revoked" can only come from the
	// session that was cut off.
	c, err := client.New(client.Config{URL: e.http.URL, Token: e.token, Handler: h, MinBackoff: time.Hour, MaxBackoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	next := func() client.State {
		t.Helper()
		select {
		case st := <-h.states:
			return st
		case err := <-done:
			t.Fatalf("client stopped: %v", err)
		case <-time.After(30 * time.Second):
			t.Fatal("no state change in 30 s")
		}
		return client.State{}
	}
	for st := next(); st.State != client.StateOnline; st = next() {
		if st.State != client.StateConnecting {
			t.Fatalf("before going online: %+v", st)
		}
	}
	if err := e.db.RevokeDevice(context.Background(), e.dev); err != nil {
		t.Fatal(err)
	}
	if st := next(); st.State != client.StateRevoked {
		t.Fatalf("after the revocation the client went %+v, want revoked at once", st)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the client stopped without an error after its revocation")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the client kept running after its revocation")
	}
}
