// Package gmailscout runs the relay's Gmail scouts (SPEC §5): push hints
// persisted by the push endpoint are turned into per-scout syncs, run one
// at a time per scout with bursts coalesced; a fallback poll catches
// notifications Pub/Sub lost; watches are renewed before they lapse;
// scouts whose user has no active desktop pause; an expired authorisation
// disables the scout and tells the desktop to reconnect.
//
// In relay-triage mode the relay holds the account's refresh token,
// sealed, and triages with the shared pipeline, queueing only verdicts; a
// relevant mail's subject, sender and snippet live in memory until the
// proposal is delivered, and are fetched again if that memory is gone. In
// relay-ping mode the relay holds no token and only forwards
// mailbox_changed hints.
package gmailscout

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/tokenseal"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Config configures the service.
type Config struct {
	DB *relaydb.DB
	// Keys seal refresh tokens; without them relay-triage scouts are
	// refused (relay-ping needs none).
	Keys *tokenseal.Keys
	// OAuth client of the Google Cloud project the desktops connect
	// through; TokenURL defaults to Google's.
	ClientID, ClientSecret, TokenURL string
	// GmailURL is the Gmail API root (default Google's).
	GmailURL string
	// Topic is the Pub/Sub topic watches publish to
	// ("projects/P/topics/T"); empty: no watches, polling only.
	Topic string
	// PollEvery is the fallback poll of every relay-triage scout (default
	// 10 minutes); RenewCheck how often watches are checked (default 1
	// hour) and RenewWithin how close to expiry they are renewed (24 h).
	PollEvery   time.Duration
	RenewCheck  time.Duration
	RenewWithin time.Duration
	// InactivityPauseDays is the default pause after a user's desktops
	// have all been away this long (default 14; a scout may set its own).
	InactivityPauseDays int
	// Model, Budget and DailyTokens configure the optional LLM step.
	Model       triage.Model
	Budget      triage.Budget
	DailyTokens int
	// InstanceID names this instance as a scout's sync lease holder: no
	// two live instances may share it (serve uses its host and listen
	// address, so a relay restarted where it was takes back its own leases
	// at once; default: host, process and a random part). LeaseTTL is how long a
	// lease lasts unrenewed (default DefaultLeaseTTL): a sync held by an
	// instance that died waits at most that long. LeaseRetry is how often
	// an instance waiting for a lease asks again (default
	// DefaultLeaseRetry).
	InstanceID string
	LeaseTTL   time.Duration
	LeaseRetry time.Duration
	// Send delivers a frame to the user's connected devices (scout_status,
	// mailbox_changed); nothing is queued for absent ones.
	Send func(userID, frameType string, data any)
	// Synced, when set, is called after each sync of a scout has run and
	// stored what it did (its cursor, its watch, its state), with the
	// sync's error. A sync that changes nothing a desktop is told of (a
	// baseline, a poll that found no mail) is otherwise silent; this is
	// what an observer, such as a test, waits on.
	Synced     func(scoutID string, err error)
	HTTPClient *http.Client
	Logger     *slog.Logger
	Now        func() time.Time
}

// Service runs Gmail scouts.
type Service struct {
	cfg   Config
	db    *relaydb.DB
	log   *slog.Logger
	wake  chan struct{}
	cards *cardCache
	// instance holds scouts' sync leases (lease.go).
	instance string

	mu      sync.Mutex
	runs    map[string]*scoutRun // by scout id
	hinting map[int64]bool       // hints being handled
	tokens  map[string]*tokenEntry
}

// New returns the service; call Run.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = 10 * time.Minute
	}
	if cfg.RenewCheck <= 0 {
		cfg.RenewCheck = time.Hour
	}
	if cfg.RenewWithin <= 0 {
		cfg.RenewWithin = 24 * time.Hour
	}
	if cfg.InactivityPauseDays <= 0 {
		cfg.InactivityPauseDays = 14
	}
	if cfg.Send == nil {
		cfg.Send = func(string, string, any) {}
	}
	if cfg.Synced == nil {
		cfg.Synced = func(string, error) {}
	}
	if cfg.InstanceID == "" {
		cfg.InstanceID = newInstanceID()
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.LeaseRetry <= 0 {
		cfg.LeaseRetry = DefaultLeaseRetry
	}
	return &Service{cfg: cfg, db: cfg.DB, log: cfg.Logger, wake: make(chan struct{}, 1), instance: cfg.InstanceID,
		cards: newCardCache(cfg.Now, 15*time.Minute, 10_000),
		runs:  map[string]*scoutRun{}, hinting: map[int64]bool{}, tokens: map[string]*tokenEntry{}}
}

// TriageAvailable reports whether relay-triage scouts can be configured.
func (s *Service) TriageAvailable() bool { return s.cfg.Keys != nil && s.cfg.ClientID != "" }

// Topic is the Pub/Sub topic watches publish to.
func (s *Service) Topic() string { return s.cfg.Topic }

// SealToken seals a refresh token for a scout.
func (s *Service) SealToken(scoutID, refreshToken string) ([]byte, error) {
	if s.cfg.Keys == nil {
		return nil, errors.New("this relay has no token keys configured (--token-keys-file); use relay-ping mode")
	}
	return s.cfg.Keys.Seal([]byte(refreshToken), aad(scoutID)), nil
}

func aad(scoutID string) []byte { return []byte("scouts-relay/gmail-refresh-token/" + scoutID) }

// Pushed wakes the hint loop after the push endpoint persisted a hint.
func (s *Service) Pushed() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run does the background work until ctx ends.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); s.hintLoop(ctx) }()
	go func() { defer wg.Done(); s.every(ctx, s.cfg.PollEvery, s.pollAll) }()
	go func() { defer wg.Done(); s.every(ctx, s.cfg.RenewCheck, s.renewDue) }()
	wg.Wait()
	s.mu.Lock()
	runs := make([]*scoutRun, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.wait()
	}
}

func (s *Service) every(ctx context.Context, d time.Duration, fn func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}

// Configured is called after a configuration operation on a Gmail scout
// committed: a new or re-enabled scout gets its watch and baseline now.
func (s *Service) Configured(ctx context.Context, scoutID string) {
	sc, err := s.db.GmailScout(ctx, scoutID)
	if err != nil {
		return
	}
	s.forgetToken(scoutID)
	if sc.Enabled && sc.Mode == relay.ModeRelayTriage {
		// A new token (a reconnect) cleared an expired state without a
		// word; the desktop, told "reconnect" when it connected, needs
		// to hear it. Sent before the sync, whose news comes after.
		s.cfg.Send(sc.UserID, protocol.TypeScoutStatus, s.statusOf(sc))
	}
	if !sc.Enabled {
		if sc.Mode == relay.ModeRelayTriage && s.cfg.Topic != "" {
			go s.stopWatch(context.WithoutCancel(ctx), sc)
		}
		return
	}
	if sc.Mode == relay.ModeRelayTriage {
		s.trigger(context.WithoutCancel(ctx), scoutID, true)
	}
}

// DeviceConnected tells a user's desktops (the one connecting among them)
// how each relay-triage scout is, then resumes the paused ones. Statuses
// are only sent to connected desktops as they change, so one that was
// away (or restarted) would otherwise never hear that a scout's access
// expired and it was disabled.
func (s *Service) DeviceConnected(ctx context.Context, userID string) {
	list, err := s.db.GmailScoutsOfUser(ctx, userID)
	if err != nil {
		s.log.Warn("gmail: scouts of a connecting user", "user", userID, "err", err)
		return
	}
	for _, sc := range list {
		g := sc.Gmail
		if sc.Mode != relay.ModeRelayTriage || (!sc.Enabled && g.State == protocol.ScoutOK) {
			continue // relay-ping scouts are the desktop's to judge; a disabled healthy one has no news
		}
		s.cfg.Send(userID, protocol.TypeScoutStatus, s.statusOf(sc))
	}
	// After the statuses: a resumed scout's news must not be overtaken by
	// its stale "paused".
	for _, sc := range list {
		if sc.Enabled && sc.Mode == relay.ModeRelayTriage && sc.Gmail.State == protocol.ScoutPaused {
			s.trigger(context.WithoutCancel(ctx), sc.ID, false)
		}
	}
}

// statusOf is a scout's stored health as the desktop is told it.
func (s *Service) statusOf(sc relay.CloudScout) protocol.ScoutStatus {
	st := protocol.ScoutStatus{ScoutID: sc.ID, State: sc.Gmail.State, Message: sc.Gmail.StateMessage, At: s.cfg.Now().UTC()}
	if st.State == protocol.ScoutAuthExpired {
		st.Action = "reconnect"
	}
	return st
}

// pollAll is the fallback for lost notifications: every relay-triage
// scout syncs; one with nothing new costs a single history.list.
func (s *Service) pollAll(ctx context.Context) {
	list, err := s.db.GmailScouts(ctx)
	if err != nil {
		s.log.Warn("gmail: fallback poll: list scouts", "err", err)
		return
	}
	for _, sc := range list {
		if sc.Mode == relay.ModeRelayTriage {
			s.trigger(ctx, sc.ID, false)
		}
	}
}

// hintLoop turns persisted push hints into syncs, and deletes each hint
// once a sync that started after it has finished for every scout of its
// mailbox. Hints of a crashed instance are found by the periodic pass.
func (s *Service) hintLoop(ctx context.Context) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		s.handleHints(ctx)
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}

func (s *Service) handleHints(ctx context.Context) {
	hints, err := s.db.PushHints(ctx, 1000)
	if err != nil {
		s.log.Warn("gmail: read push hints", "err", err)
		return
	}
	byEmail := map[string][]int64{}
	latest := map[string]uint64{}
	s.mu.Lock()
	for _, h := range hints {
		if s.hinting[h.ID] {
			continue
		}
		s.hinting[h.ID] = true
		byEmail[h.Email] = append(byEmail[h.Email], h.ID)
		latest[h.Email] = max(latest[h.Email], h.HistoryID)
	}
	s.mu.Unlock()
	for email, ids := range byEmail {
		go s.handleMailbox(ctx, email, latest[email], ids)
	}
}

func (s *Service) handleMailbox(ctx context.Context, email string, historyID uint64, ids []int64) {
	defer func() {
		s.mu.Lock()
		for _, id := range ids {
			delete(s.hinting, id)
		}
		s.mu.Unlock()
	}()
	list, err := s.db.GmailScoutsByEmail(ctx, email)
	if err != nil {
		s.log.Warn("gmail: scouts of a pushed mailbox", "err", err)
		return
	}
	var waits []<-chan error
	for _, sc := range list {
		switch sc.Mode {
		case relay.ModeRelayPing:
			s.cfg.Send(sc.UserID, protocol.TypeMailboxChanged, protocol.MailboxChanged{ScoutID: sc.ID, Email: email,
				HistoryID: formatUint(historyID)})
		case relay.ModeRelayTriage:
			waits = append(waits, s.trigger(ctx, sc.ID, false))
		}
	}
	// A hint has done its work once a sync started after it has run, even
	// a failed one: the cursor did not move, and the fallback poll retries.
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return
		}
	}
	if err := s.db.DeleteHints(ctx, ids); err != nil {
		s.log.Warn("gmail: delete handled hints", "err", err)
		return
	}
	s.log.Debug("gmail: push hints handled", "email", email, "hints", len(ids))
}
