package mcpclient

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// conn is one server's connection: started on demand, closed when idle,
// started again after a crash with a growing wait.
type conn struct {
	m    *Manager
	name string

	mu       sync.Mutex
	cs       *mcp.ClientSession
	lastUse  time.Time
	idle     *time.Timer
	failures int
	retryAt  time.Time
	closed   bool
}

func (m *Manager) conn(ctx context.Context, name string) (*conn, error) {
	if _, err := m.server(ctx, name); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.conns[name]
	if c == nil {
		c = &conn{m: m, name: name}
		m.conns[name] = c
	}
	return c, nil
}

// backoff is the wait after n failures in a row: Backoff doubling, at most
// a minute.
func (c *conn) backoff() time.Duration {
	d := c.m.cfg.Backoff
	for i := 1; i < c.failures && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}

// session returns the live session, connecting first if there is none.
func (c *conn) session(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, scouts.Errorf(scouts.ENotFound, "MCP server %s was removed", c.name)
	}
	c.touch()
	if c.cs != nil {
		return c.cs, nil
	}
	if now := c.m.cfg.Now(); now.Before(c.retryAt) {
		return nil, scouts.Errorf(scouts.EUnavailable, "MCP server %s failed %d times in a row; next try at %s", c.name, c.failures, c.retryAt.Format(time.TimeOnly))
	}
	cs, err := c.connect(ctx)
	if err != nil {
		c.failures++
		c.retryAt = c.m.cfg.Now().Add(c.backoff())
		return nil, err
	}
	c.cs = cs
	go c.watch(cs)
	return cs, nil
}

// touch notes a use and pushes the idle stop back. Called with c.mu held.
func (c *conn) touch() {
	c.lastUse = c.m.cfg.Now()
	if c.idle == nil {
		c.idle = time.AfterFunc(c.m.cfg.IdleTimeout, c.idleStop)
		return
	}
	c.idle.Reset(c.m.cfg.IdleTimeout)
}

// idleStop closes the session of a server not used for IdleTimeout: a
// stdio server's process ends; it starts again when next needed.
func (c *conn) idleStop() {
	c.mu.Lock()
	cs := c.cs
	c.cs = nil
	c.mu.Unlock()
	if cs != nil {
		c.m.log.Info("mcp: server idle, stopped", "server", c.name)
		cs.Close()
	}
}

func (c *conn) close() {
	c.mu.Lock()
	c.closed = true
	cs := c.cs
	c.cs = nil
	if c.idle != nil {
		c.idle.Stop()
	}
	c.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
}

// watch waits for a session's end. An end nobody asked for is a crash:
// logged, and the server is started again after the backoff, its tools
// listed again (a restarted server may list other tools).
func (c *conn) watch(cs *mcp.ClientSession) {
	err := cs.Wait()
	c.mu.Lock()
	crashed := c.cs == cs && !c.closed
	if crashed {
		c.cs = nil
		c.failures++
		c.retryAt = c.m.cfg.Now().Add(c.backoff())
	}
	wait := c.backoff()
	c.mu.Unlock()
	if !crashed {
		return
	}
	c.m.log.Warn("mcp: server stopped by itself; starting it again", "server", c.name, "err", err, "after", wait)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.m.ctx.Done():
		return
	case <-t.C:
	}
	if _, err := c.m.Refresh(c.m.ctx, c.name); err != nil {
		c.m.log.Warn("mcp: restart", "server", c.name, "err", err)
	}
}

// connected is called once a listing succeeded: the failures are over.
func (c *conn) connected() {
	c.mu.Lock()
	c.failures, c.retryAt = 0, time.Time{}
	c.mu.Unlock()
}

// connect starts the server (stdio) or opens the connection (HTTP) and
// initialises the session. A tools/list_changed notification lists the
// tools again at once.
func (c *conn) connect(ctx context.Context) (*mcp.ClientSession, error) {
	s, err := c.m.server(ctx, c.name)
	if err != nil {
		return nil, err
	}
	t, err := c.transport(ctx, s)
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "scouts", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: c.m.progress.notified,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			// Not in the handler's goroutine: listing waits on the
			// same connection.
			go func() {
				if _, err := c.m.Refresh(c.m.ctx, c.name); err != nil {
					c.m.log.Warn("mcp: tools changed, listing failed", "server", c.name, "err", err)
				}
			}()
		},
	})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: connect: %w", c.name, err)
	}
	return cs, nil
}

// transport builds a server's transport, its secrets read now from the
// keyring (never stored with the server).
func (c *conn) transport(ctx context.Context, s localdb.MCPServer) (mcp.Transport, error) {
	secret := func(name string) (string, error) {
		if c.m.cfg.Secret == nil {
			return "", scouts.Errorf(scouts.EInvalid, "MCP server %s needs the secret %s, and this agent has no keyring", s.Name, name)
		}
		v, err := c.m.cfg.Secret(ctx, name)
		if err != nil {
			return "", fmt.Errorf("MCP server %s: secret %s: %w", s.Name, name, err)
		}
		return string(v), nil
	}
	if s.URL != "" {
		hdr := http.Header{}
		for h, name := range s.Headers {
			v, err := secret(name)
			if err != nil {
				return nil, err
			}
			hdr.Set(h, v)
		}
		if s.Bearer != "" {
			v, err := secret(s.Bearer)
			if err != nil {
				return nil, err
			}
			hdr.Set("Authorization", "Bearer "+v)
		}
		return &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: &http.Client{Transport: headerTransport{hdr}}}, nil
	}
	if len(s.Command) == 0 {
		return nil, scouts.Errorf(scouts.EInvalid, "MCP server %s has neither a command nor a URL", s.Name)
	}
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	// Not the agent's whole environment: a server gets what a program
	// needs to run and the secrets named for it, nothing the agent was
	// started with besides.
	for _, k := range []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "XDG_RUNTIME_DIR", "SystemRoot"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, name := range s.Env {
		v, err := secret(name)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = &logWriter{log: c.m.log, server: s.Name}
	return &mcp.CommandTransport{Command: cmd}, nil
}

// headerTransport adds a server's headers to each request.
type headerTransport struct{ h http.Header }

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// logWriter sends a server's stderr to the agent's log, a line at a time,
// with the server's name.
type logWriter struct {
	log    *slog.Logger
	server string
	mu     sync.Mutex
	buf    []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := -1
		for j, b := range w.buf {
			if b == '\n' {
				i = j
				break
			}
		}
		if i < 0 {
			break
		}
		w.log.Info("mcp server stderr", "server", w.server, "line", clip(string(w.buf[:i]), 2000))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 { // a line without end: logged in pieces
		w.log.Info("mcp server stderr", "server", w.server, "line", clip(string(w.buf), 2000))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

var _ io.Writer = (*logWriter)(nil)
