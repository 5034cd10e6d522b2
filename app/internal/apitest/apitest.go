// Package apitest serves a real desktop core's local API on a Unix socket
// in a test's temporary directory, as the agent does, so that clients of
// the API (localclient, the stream followers) are tested against the real
// thing in-process; the server can be stopped and started again on the
// same socket while the core, and its events, go on.
package apitest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localapi"
	"github.com/scouts-hq/scouts/app/localclient"
)

// Agent is a started core with its API on Socket.
type Agent struct {
	t      testing.TB
	Core   *core.Core
	Socket string
	Client *localclient.Client
	api    *localapi.Server
	srv    *http.Server
	served chan struct{}
}

// Start opens a core on a fresh data directory, starts it and serves its
// API on a socket beside it; everything stops when the test ends.
func Start(t testing.TB) *Agent {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := core.Open(ctx, core.Config{DataDir: data, Version: "test"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	// Short: a Unix socket's path is limited to about 100 bytes.
	sock := filepath.Join(dir, "a.sock")
	a := &Agent{t: t, Core: c, Socket: sock, Client: localclient.NewSocket(sock), api: localapi.New(c, localapi.Options{})}
	t.Cleanup(func() { a.Stop(); cancel(); c.Close() })
	a.Serve()
	return a
}

// Serve serves the API on the socket (again, after Stop).
func (a *Agent) Serve() {
	a.t.Helper()
	l, err := net.Listen("unix", a.Socket)
	if err != nil {
		a.t.Fatal(err)
	}
	if err := os.Chmod(a.Socket, 0o600); err != nil {
		a.t.Fatal(err)
	}
	a.srv = &http.Server{Handler: a.api.SocketHandler()}
	a.served = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.t.Errorf("apitest: serve: %v", err)
		}
	}(a.srv, a.served)
}

// Stop closes the server and every connection to it (streams included),
// as an agent that exits does; the core keeps running.
func (a *Agent) Stop() {
	if a.srv == nil {
		return
	}
	a.srv.Close()
	<-a.served
	a.srv = nil
}
