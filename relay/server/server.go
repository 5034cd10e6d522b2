// Package server is the relay's HTTP side: the device WebSocket, webhooks,
// health and metrics, and the background work (revocations, expiry,
// cross-instance wake-ups).
package server

import (
	"context"
	"encoding/json"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/sealbox"
)

// Config configures a Server.
type Config struct {
	DB     *relaydb.DB
	Logger *slog.Logger
	// PublicURL is the relay's address as desktops and webhook callers see
	// it (https://relay.example.com), used in hook URLs.
	PublicURL string
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
	// Retention is how long acknowledged and expired rows are kept. Default 30 days.
	Retention time.Duration
	// Gmail runs Gmail scouts and PushAuth admits their push
	// notifications; without both the relay runs webhook scouts only.
	Gmail    *gmailscout.Service
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
	db      *relaydb.DB
	log     *slog.Logger
	hub     *hub
	metrics *metrics
	mux     *http.ServeMux
	workers *workers
	parker  *parker
	// sealer seals webhook items for devices that open batch-v1.
	sealer sealbox.Sealer

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
	if cfg.Retention <= 0 {
		cfg.Retention = 30 * 24 * time.Hour
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
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	ctx, cancel := context.WithCancel(context.Background())
	parker := newParker()
	s := &Server{cfg: cfg, db: cfg.DB, log: cfg.Logger, hub: newHub(), metrics: newMetrics(cfg.DB, parker.count),
		mux: http.NewServeMux(), baseCtx: ctx, cancelBase: cancel,
		// Enough for database calls to overlap (PostgreSQL's pool holds 20);
		// a worker without work for a minute leaves.
		workers: newWorkers(16, time.Minute), parker: parker}
	// In-process wake-ups (SQLite, and this instance's own commits).
	cfg.DB.OnQueued(s.hub.notify)
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

func (s *Server) hookURL(scoutID string) string {
	return s.cfg.PublicURL + "/api/v1/hooks/" + scoutID
}

func (s *Server) shuttingDown() bool { return s.stopping.Load() }

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if s.shuttingDown() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	w.Write([]byte("ready\n"))
}

// Run does the relay's background work until ctx ends: it cuts off
// revoked devices, expires and purges old rows, and on PostgreSQL listens
// for rows queued by other instances.
func (s *Server) Run(ctx context.Context) {
	go s.revocations(ctx)
	go s.sweeper(ctx)
	if relaydb.IsPostgres(s.db.DSN()) {
		go s.listen(ctx)
	}
	if s.cfg.Gmail != nil {
		s.cfg.Gmail.Run(ctx)
	}
	<-ctx.Done()
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
		ids, err := s.db.RevokedSince(ctx, since)
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

func (s *Server) sweeper(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if users, err := s.db.ExpireDue(ctx); err != nil {
			s.log.Warn("expire queue rows", "err", err)
		} else if len(users) > 0 {
			s.log.Info("queue rows expired", "users", len(users))
		}
		if err := s.db.Purge(ctx, s.cfg.Retention); err != nil {
			s.log.Warn("purge", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// listen relays PostgreSQL notifications of queued rows to this
// instance's sessions, reconnecting with backoff; after a reconnection
// every session looks at the queue, since notifications may have been lost.
func (s *Server) listen(ctx context.Context) {
	const first = 100 * time.Millisecond
	backoff := first
	for ctx.Err() == nil {
		listening, err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if listening {
			// The connection worked: this is a new outage, not the
			// same one going on.
			backoff = first
		}
		s.log.Warn("LISTEN connection lost; reconnecting", "err", err, "in", backoff.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

// listenOnce listens until the connection fails; listening reports whether
// it got as far as LISTEN.
func (s *Server) listenOnce(ctx context.Context) (listening bool, err error) {
	conn, err := pgx.Connect(ctx, s.db.DSN())
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+relaydb.NotifyChannel+"; LISTEN "+relaydb.HookChannel); err != nil {
		return false, err
	}
	s.hub.notifyAll()
	// Webhook answers are cached only while changes made elsewhere are
	// heard; whatever was missed before is forgotten.
	s.db.HookTargetsShared(true)
	defer s.db.HookTargetsShared(false)
	s.log.Info("listening for notifications from other instances")
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		if n.Channel == relaydb.HookChannel {
			s.db.ForgetHookTargets(n.Payload)
			s.log.Debug("webhook answers changed elsewhere forgotten", "users", n.Payload)
			continue
		}
		// One notification per transaction names every user it queued
		// rows for.
		for _, u := range relaydb.NotifiedUsers(n.Payload) {
			s.hub.notify(u)
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
