package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"sync"
	"time"
)

// Connections are admitted, shed or refused as they are accepted. An
// admitted connection is served normally. A shed one (over MaxConns) is
// served by a second, short-lived HTTP server that answers 503 to
// everything but health checks and closes; a bounded room for them keeps
// the process from running out of descriptors while still telling clients
// and load balancers what is going on. A connection over its address's cap,
// or with the shed room full, is closed at once.

// reservedFDs estimates the descriptors the process needs besides client
// connections: the database (a PostgreSQL pool of 20 and LISTEN, or SQLite
// connections with their WAL and shared-memory files), the listener,
// outbound clients (Gmail, Pub/Sub, OAuth), standard streams and the
// runtime's own.
func reservedFDs() int { return 64 + 3*runtime.NumCPU() }

// connLimits derives the connection cap and the shed room from the
// open-files limit.
func connLimits(nofile uint64) (maxConns, shedRoom int) {
	avail := int(min(nofile, 1<<24)) - reservedFDs()
	shedRoom = min(max(avail/8, 4), 256)
	return max(avail-shedRoom, 1), shedRoom
}

type verdict int

const (
	admitted verdict = iota
	shed             // over MaxConns: 503, health checks answered
	refused          // over the address's cap, or no shed room left
)

// gate is the listener the relay serves: it counts connections until they
// close (device sessions included: a hijacked connection is still ours) and
// routes each new one by the caps.
type gate struct {
	net.Listener
	maxConns, shedRoom, maxPerAddr int
	exempt                         []netip.Prefix
	shedConns                      chan net.Conn
	onRefuse                       func(reason string)

	mu      sync.Mutex
	open    int // admitted
	shedNow int
	perAddr map[netip.Addr]int
}

func (g *gate) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc, v := g.admit(c)
		switch v {
		case admitted:
			return lc, nil
		case shed:
			select {
			case g.shedConns <- lc:
			default:
				lc.Close()
			}
		case refused:
			c.Close()
		}
	}
}

func (g *gate) admit(c net.Conn) (*gateConn, verdict) {
	addr := remoteAddr(c)
	capped := g.maxPerAddr > 0 && addr.IsValid() && !g.isExempt(addr)
	g.mu.Lock()
	defer g.mu.Unlock()
	if capped && g.perAddr[addr] >= g.maxPerAddr {
		g.onRefuse("per_address")
		return nil, refused
	}
	v := admitted
	if g.open >= g.maxConns {
		if g.shedNow >= g.shedRoom {
			g.onRefuse("no_room")
			return nil, refused
		}
		g.onRefuse("over_cap")
		v = shed
		g.shedNow++
	} else {
		g.open++
	}
	gc := &gateConn{Conn: c, g: g, shed: v == shed}
	if capped {
		g.perAddr[addr]++
		gc.addr = addr
	}
	return gc, v
}

func (g *gate) release(c *gateConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.shed {
		g.shedNow--
	} else {
		g.open--
	}
	if c.addr.IsValid() {
		if g.perAddr[c.addr]--; g.perAddr[c.addr] <= 0 {
			delete(g.perAddr, c.addr)
		}
	}
}

func (g *gate) isExempt(a netip.Addr) bool {
	for _, p := range g.exempt {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func remoteAddr(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// gateConn gives its place back when it closes, whoever closes it (the
// HTTP server, or the WebSocket library after a hijack).
type gateConn struct {
	net.Conn
	g    *gate
	addr netip.Addr // set when counted against its address's cap
	shed bool
	once sync.Once
}

func (c *gateConn) Close() error {
	c.once.Do(func() { c.g.release(c) })
	return c.Conn.Close()
}

// shedListener hands the shed connections to the server that answers them.
type shedListener struct {
	conns <-chan net.Conn
	done  chan struct{}
	once  sync.Once
	addr  net.Addr
}

func (l *shedListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *shedListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *shedListener) Addr() net.Addr { return l.addr }

// shedHandler answers connections over the cap: health checks as usual
// (a load balancer must still see the instance alive and ready), anything
// else 503 with Retry-After; every connection closes after one answer.
func (s *Server) shedHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		if r.Method == http.MethodGet && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz") {
			s.mux.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", "5")
		writeJSONError(w, http.StatusServiceUnavailable, "overloaded", "the relay is at its connection limit; retry in a few seconds")
	})
}

// servers builds the main HTTP server and the shed one over l, with the
// configured timeouts and caps.
func (s *Server) servers(l net.Listener) (main, shedSrv *http.Server, gl *gate, sl *shedListener) {
	maxConns, shedRoom := connLimits(openFilesLimit())
	if s.cfg.MaxConns > 0 {
		maxConns = s.cfg.MaxConns
		shedRoom = min(max(maxConns/8, 4), 256)
	}
	ch := make(chan net.Conn, shedRoom)
	gl = &gate{Listener: l, maxConns: maxConns, shedRoom: shedRoom, maxPerAddr: s.cfg.MaxConnsPerAddr,
		exempt: s.cfg.ConnCapExempt, shedConns: ch, perAddr: map[netip.Addr]int{},
		onRefuse: func(reason string) { s.metrics.connsRefused.WithLabelValues(reason).Inc() }}
	sl = &shedListener{conns: ch, done: make(chan struct{}), addr: l.Addr()}
	errLog := newErrorLog(s.log)
	main = &http.Server{Handler: s.Handler(), ErrorLog: errLog,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, ReadTimeout: s.cfg.ReadTimeout,
		WriteTimeout: s.cfg.WriteTimeout, IdleTimeout: s.cfg.IdleTimeout}
	// A shed connection gets one short chance: its room is small.
	quick := min(s.cfg.ReadHeaderTimeout, 2*time.Second)
	shedSrv = &http.Server{Handler: s.shedHandler(), ErrorLog: errLog,
		ReadHeaderTimeout: quick, ReadTimeout: quick, WriteTimeout: quick + 2*time.Second, IdleTimeout: quick}
	shedSrv.SetKeepAlivesEnabled(false)
	return main, shedSrv, gl, sl
}

// shutdownBoth stops both servers within ctx.
func shutdownBoth(ctx context.Context, a, b *http.Server) {
	var wg sync.WaitGroup
	for _, srv := range []*http.Server{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); srv.Shutdown(ctx) }()
	}
	wg.Wait()
}
