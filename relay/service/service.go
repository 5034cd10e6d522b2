// Package service is what the relay's requests mean: a webhook item
// (checked, sealed for each device, queued once), a Gmail push (kept,
// then the scouts of its mailbox woken), a device's hello and its
// acknowledgements, a scout's configuration from a desktop (registered,
// updated, disabled exactly once), and the queue's expiry. Each request
// is one call, whatever carried it; relay/server, the transport (HTTP,
// WebSocket, parked sessions, limits), decodes the request, calls the
// method and encodes the answer, mapping a refusal's Code to its own
// status codes.
//
// The service sees storage through relay/relaydb, and the transport's
// sessions through Sessions, which it wakes when rows are queued for
// their user.
package service

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/sealbox"
)

// Config configures a Service.
type Config struct {
	DB     *relaydb.DB
	Logger *slog.Logger
	// PublicURL is the relay's address as desktops and webhook callers
	// see it (https://relay.example.com), used in hook URLs.
	PublicURL string
	// Gmail runs Gmail scouts; without it the relay runs webhook scouts
	// only.
	Gmail *gmailscout.Service
	// Retention is how long acknowledged and expired rows are kept.
	// Default 30 days.
	Retention time.Duration
}

// Service is the relay's meaning of a request.
type Service struct {
	cfg Config
	db  *relaydb.DB
	log *slog.Logger
	// sealer seals webhook items for devices that open batch-v1.
	sealer   sealbox.Sealer
	sessions Sessions
}

// Sessions is what the service asks of the transport: to look at the
// queue again for a user's sessions (rows were queued or expired for
// them), or for every session (notifications may have been missed).
type Sessions interface {
	Wake(userID string)
	WakeAll()
}

// New returns the service; the transport calls SetSessions, and Run does
// the background work.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Retention <= 0 {
		cfg.Retention = 30 * 24 * time.Hour
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	return &Service{cfg: cfg, db: cfg.DB, log: cfg.Logger}
}

// SetSessions gives the service the transport's sessions, before any
// request: a commit that queues rows wakes its user's sessions in this
// process (on PostgreSQL, other instances hear of it by notification).
func (s *Service) SetSessions(sess Sessions) {
	s.sessions = sess
	s.db.OnQueued(sess.Wake)
}

// RunsGmail reports whether this relay runs Gmail scouts.
func (s *Service) RunsGmail() bool { return s.cfg.Gmail != nil }

// Run does the background work until ctx ends: it expires and purges
// old rows, on PostgreSQL listens for rows queued by other instances,
// and runs the Gmail scouts.
func (s *Service) Run(ctx context.Context) {
	go s.sweeper(ctx)
	if relaydb.IsPostgres(s.db.DSN()) {
		go s.listen(ctx)
	}
	if s.cfg.Gmail != nil {
		s.cfg.Gmail.Run(ctx)
	}
	<-ctx.Done()
}

// Ready checks that the database answers (readiness).
func (s *Service) Ready(ctx context.Context) error { return s.db.Ping(ctx) }

// QueueDepth counts the queue's rows by status (metrics).
func (s *Service) QueueDepth(ctx context.Context) (map[string]int, error) {
	return s.db.QueueDepth(ctx)
}

// RevokedSince lists the devices revoked at or after since, whose
// sessions the transport cuts off.
func (s *Service) RevokedSince(ctx context.Context, since time.Time) ([]string, error) {
	return s.db.RevokedSince(ctx, since)
}

func (s *Service) hookURL(scoutID string) string {
	return s.cfg.PublicURL + "/api/v1/hooks/" + scoutID
}
