// Package server is the relay's transport: HTTP and the device
// WebSocket, idle sessions parked, connection caps and rate limits,
// health and metrics. What a request means (a webhook item, a Gmail
// push, a hello, an acknowledgement, a scout's configuration) is
// relay/service's: each handler decodes the request, calls the service
// once and encodes its answer, and errors.go maps the service's refusals
// to HTTP statuses and protocol codes.
package server

import (
	"context"
	"encoding/json"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/relay/service"
)

// Config configures a Server.
type Config struct {
	// Service is what requests mean; the server calls it once per
	// request and runs its background work.
	Service *service.Service
	Logger  *slog.Logger
	// Heartbeat is the ping interval; a device silent for three of them is
	// dropped. Default 10 s.
	Heartbeat time.Duration
	// Window is the number of unacknowledged proposals per device. Default
	// DefaultWindow.
	Window int
	// FrameRate and FrameBurst limit frames per device. Defaults 100/s, 500.
	FrameRate  float64
	FrameBurst int
	// RevocationPoll is how often revocations made by the admin CLI are
	// looked for. Default 2 s.
	RevocationPoll time.Duration
	// PushAuth admits Gmail's push notifications; without it, or without
	// Gmail scouts in the service, the push endpoint answers 404.
	PushAuth *pushauth.Verifier

	// HTTP timeouts for ordinary requests (device sessions bound
	// themselves): ReadHeaderTimeout for a request's header (default
	// 10 s), ReadTimeout for the whole request with its body (30 s),
	// WriteTimeout for handling it and writing the answer (30 s),
	// IdleTimeout for a keep-alive connection between requests (60 s).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns caps open connections (device sessions included); requests
	// on connections over it are answered 503, health checks excepted.
	// Default: derived from the open-files limit, leaving room for the
	// database, the listener and outbound clients.
	MaxConns int
	// MaxConnsPerAddr caps the connections of one source address; more
	// are refused. 0: no cap. Addresses in ConnCapExempt (a reverse proxy
	// in front, whose connections carry many clients) are not capped.
	MaxConnsPerAddr int
	ConnCapExempt   []netip.Prefix
}

// Server is the relay.
type Server struct {
	cfg     Config
	svc     *service.Service
	log     *slog.Logger
	hub     *hub
	metrics *metrics
	mux     *http.ServeMux
	workers *workers
	parker  *parker

	baseCtx    context.Context
	cancelBase context.CancelFunc
	stopping   atomic.Bool
}

// New returns a relay server; call Run for its background work.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 10 * time.Second
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.FrameRate <= 0 {
		cfg.FrameRate = 100
	}
	if cfg.FrameBurst <= 0 {
		cfg.FrameBurst = 500
	}
	if cfg.RevocationPoll <= 0 {
		cfg.RevocationPoll = 2 * time.Second
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = 10 * time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 30 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 60 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	parker := newParker()
	s := &Server{cfg: cfg, svc: cfg.Service, log: cfg.Logger, hub: newHub(), metrics: newMetrics(cfg.Service, parker.count),
		mux: http.NewServeMux(), baseCtx: ctx, cancelBase: cancel,
		// Enough for database calls to overlap (PostgreSQL's pool holds 20);
		// a worker without work for a minute leaves.
		workers: newWorkers(16, time.Minute), parker: parker}
	// Rows queued for a user wake the user's sessions.
	cfg.Service.SetSessions(s.hub)
	s.mux.HandleFunc("GET /api/v1/device", s.handleDevice)
	s.mux.HandleFunc("POST /api/v1/hooks/{scout}", s.handleHook)
	s.mux.HandleFunc("POST /api/v1/scouts/webhooks/gmail", s.handleGmailPush)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	s.mux.HandleFunc("GET /readyz", s.handleReady)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return s
}

// Handler is the relay's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Connections is the number of device sessions on this instance.
func (s *Server) Connections() int { return s.hub.count() }

func (s *Server) shuttingDown() bool { return s.stopping.Load() }

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.svc.Ready(ctx); err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	w.Write([]byte("ready\n"))
}

// Run does the relay's background work until ctx ends: it cuts off
// revoked devices, and runs the service's (expiry, wake-ups from other
// instances, Gmail scouts).
func (s *Server) Run(ctx context.Context) {
	go s.revocations(ctx)
	s.svc.Run(ctx)
}

// Shutdown stops accepting sessions, closes the open ones with "going
// away" (desktops reconnect, to another instance if there is one) and
// waits for them to end.
func (s *Server) Shutdown(ctx context.Context) {
	s.stopping.Store(true)
	s.hub.closeAll(int(1001), "relay shutting down")
	done := make(chan struct{})
	go func() { s.hub.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.cancelBase()
}

func (s *Server) revocations(ctx context.Context) {
	t := time.NewTicker(s.cfg.RevocationPoll)
	defer t.Stop()
	since := time.Now().Add(-time.Minute)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// Overlap the window a little: a revocation committed during the
		// previous query must not fall between two checks.
		now := time.Now()
		ids, err := s.svc.RevokedSince(ctx, since)
		if err != nil {
			s.log.Warn("check revocations", "err", err)
			continue
		}
		since = now.Add(-2 * s.cfg.RevocationPoll)
		for _, id := range ids {
			if s.hub.revoke(id) {
				s.log.Info("revoked device cut off", "device", id)
			}
		}
	}
}

// ServeListener serves the relay on l until ctx ends, then shuts down
// gracefully within grace. Timeouts and connection caps apply here (see
// Config); Handler alone has neither.
func (s *Server) ServeListener(ctx context.Context, l net.Listener, grace time.Duration) error {
	srv, shedSrv, gl, sl := s.servers(l)
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	go s.Run(runCtx)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(gl) }()
	go shedSrv.Serve(sl)
	select {
	case err := <-errc:
		sl.Close()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	s.Shutdown(sctx)
	shutdownBoth(sctx, srv, shedSrv)
	return nil
}

func newErrorLog(log *slog.Logger) *stdlog.Logger {
	return slog.NewLogLogger(log.Handler(), slog.LevelWarn)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeJSONError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]string{"code": code, "error": msg})
}
