package core

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// GmailAuth is where the desktop's Gmail accounts live: the OAuth flow and
// the keyring (app/gmailauth).
type GmailAuth interface {
	// Connect starts the consent flow and returns the URL the browser was
	// sent to; the account appears when the user has consented, and then
	// connected is called with its address (once, from another
	// goroutine; never if the flow fails).
	Connect(ctx context.Context, connected func(email string)) (authURL string, err error)
	Accounts(ctx context.Context) ([]GmailAccount, error)
	TokenSource(ctx context.Context, email string) (oauth2.TokenSource, error)
	RefreshToken(ctx context.Context, email string) (string, error)
	Disconnect(ctx context.Context, email string) error
}

// GmailAccount is a connected account.
type GmailAccount struct {
	Email       string
	ConnectedAt time.Time
}

// Gmail modes on the desktop: local (no relay) and the two relay modes.
const (
	GmailLocal       = "local"
	GmailRelayPing   = protocol.ModeRelayPing
	GmailRelayTriage = protocol.ModeRelayTriage
)

// GmailConfig is a Gmail scout's configuration.
type GmailConfig struct {
	Email               string        `json:"email"`
	Mode                string        `json:"mode"`
	AutoTrashSpam       bool          `json:"auto_trash_spam,omitempty"`
	InactivityPauseDays int           `json:"inactivity_pause_days,omitempty"`
	Rules               []triage.Rule `json:"rules,omitempty"`
	// PushTopic is set by the relay for relay-ping scouts: the topic the
	// desktop's watch publishes to.
	PushTopic string `json:"push_topic,omitempty"`
	// Baseline is set by the agent when the scout is created: where the
	// mailbox was then. The scout reads what arrived after it, however
	// late its first sync (or, in relay-triage mode, the relay) comes.
	// Absent when Gmail could not be asked then: mail received after the
	// scout's creation time is read instead.
	Baseline *GmailBaseline `json:"baseline,omitempty"`
}

// GmailBaseline is a mailbox's history id at a moment.
type GmailBaseline struct {
	HistoryID uint64    `json:"history_id,string"`
	At        time.Time `json:"at"`
}

func parseGmailConfig(raw json.RawMessage) (GmailConfig, error) {
	var g GmailConfig
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return g, scouts.Errorf(scouts.EInvalid, "gmail scout config: %v", err)
	}
	g.Email = strings.ToLower(strings.TrimSpace(g.Email))
	if g.Mode == "" {
		g.Mode = GmailLocal
	}
	switch g.Mode {
	case GmailLocal, GmailRelayPing, GmailRelayTriage:
	default:
		return g, scouts.Errorf(scouts.EInvalid, "gmail scout mode %q: want local, relay-ping or relay-triage", g.Mode)
	}
	if !strings.Contains(g.Email, "@") {
		return g, scouts.Errorf(scouts.EInvalid, "gmail scout config needs the connected account's email")
	}
	if g.InactivityPauseDays < 0 || g.InactivityPauseDays > 365 {
		return g, scouts.Errorf(scouts.EInvalid, "inactivity_pause_days must be 0 to 365")
	}
	if err := triage.ValidateRules(g.Rules); err != nil {
		return g, err
	}
	return g, nil
}

// checkGmail validates a Gmail scout against what the desktop has: the
// account connected, a relay for the relay modes.
func (c *Core) checkGmail(ctx context.Context, s *scouts.Scout) error {
	g, err := parseGmailConfig(s.Config)
	if err != nil {
		return err
	}
	if c.cfg.Gmail == nil {
		return scouts.Errorf(scouts.EInvalid, "Gmail is not set up on this desktop: start the agent with --google-client-id (see docs/gmail.md)")
	}
	if g.Mode != GmailLocal && c.currentRelay() == nil {
		return scouts.Errorf(scouts.EInvalid, "%s mode needs a relay: log in to one (scouts relay login URL TOKEN), or use local mode", g.Mode)
	}
	accounts, err := c.cfg.Gmail.Accounts(ctx)
	if err != nil {
		return err
	}
	found := false
	for _, a := range accounts {
		found = found || strings.EqualFold(a.Email, g.Email)
	}
	if !found {
		return scouts.Errorf(scouts.EInvalid, "%s is not connected: connect it first (POST /api/v1/gmail/connect)", g.Email)
	}
	if g.Baseline == nil {
		prev, err := c.DB.GetScout(ctx, s.ID)
		switch {
		case scouts.ErrorCode(err) == scouts.ENotFound: // a new scout
			g.Baseline = c.gmailBaseline(ctx, g.Email)
		case err != nil:
			return err
		default:
			// A changed configuration keeps where the scout started (a
			// scout from before baselines has its cursor: Gmail is not
			// asked again); on another mailbox it starts afresh.
			if pg, err := parseGmailConfig(prev.Config); err == nil && pg.Email == g.Email {
				g.Baseline = pg.Baseline
			} else {
				g.Baseline = c.gmailBaseline(ctx, g.Email)
			}
		}
	}
	s.Config, _ = json.Marshal(g)
	if s.Name == "" {
		s.Name = "Gmail " + g.Email
	}
	return nil
}

// gmailBaseline reads where the mailbox is now, for a new scout. It does
// not hold up the creation for long: if Gmail does not answer (a rate
// limit, no network), the scout reads from its creation time instead.
func (c *Core) gmailBaseline(ctx context.Context, email string) *GmailBaseline {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ts, err := c.cfg.Gmail.TokenSource(ctx, email)
	if err == nil {
		var client *gmail.Client
		client, err = gmail.NewClient(ctx, gmail.Options{BaseURL: c.cfg.GmailAPIURL, TokenSource: ts, Logger: c.log,
			Attempts: 2, MaxWait: 2 * time.Second})
		if err == nil {
			var hid uint64
			if _, hid, err = client.Profile(ctx); err == nil {
				return &GmailBaseline{HistoryID: hid, At: c.now()}
			}
		}
	}
	c.log.Info("gmail: where the mailbox is could not be read; the new scout reads the mail received since its creation instead",
		"email", email, "err", err)
	return nil
}

// gmailRelayOp is a Gmail scout's configuration for the relay, with the
// rules the relay applies itself (see triageRules). The refresh token is
// not in it: it would sit in the outbox table in clear. PendingOps adds it
// from the keyring when the operation is sent.
func gmailRelayOp(s scouts.Scout, g GmailConfig, rules []triage.Rule) protocol.ScoutConfig {
	op := protocol.ScoutConfig{ScoutID: s.ID, Kind: string(scouts.KindGmail), Name: s.Name, Enabled: s.Enabled,
		Email: g.Email, Mode: g.Mode, AutoTrashSpam: g.AutoTrashSpam, InactivityPauseDays: g.InactivityPauseDays,
		CreatedAt: s.CreatedAt, ModelDayTokens: s.Budget.DayTokens, ModelRunTokens: s.Budget.RunTokens}
	if g.Baseline != nil {
		op.BaselineHistoryID = strconv.FormatUint(g.Baseline.HistoryID, 10)
	}
	op.Rules = relayRules(rules)
	return op
}

// withRefreshToken fills a relay-triage registration's token from the
// keyring at send time.
func (c *Core) withRefreshToken(ctx context.Context, op protocol.ScoutConfig) (*protocol.ScoutConfig, error) {
	if op.Mode != GmailRelayTriage || !op.Enabled {
		return nil, nil
	}
	if c.cfg.Gmail == nil {
		return nil, errors.New("gmail is not set up on this desktop")
	}
	rt, err := c.cfg.Gmail.RefreshToken(ctx, op.Email)
	if err != nil {
		return nil, err
	}
	op.RefreshToken = rt
	return &op, nil
}

// gmailHints routes the relay's mailbox_changed hints to relay-ping
// scouts' connectors.
type gmailHints struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

func (h *gmailHints) channel(scoutID string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch == nil {
		h.ch = map[string]chan struct{}{}
	}
	ch := h.ch[scoutID]
	if ch == nil {
		ch = make(chan struct{}, 1)
		h.ch[scoutID] = ch
	}
	return ch
}

// hintAll wakes every relay-ping scout: after the desktop was away from
// the relay, hints sent meanwhile were lost.
func (h *gmailHints) hintAll() {
	h.mu.Lock()
	ids := make([]string, 0, len(h.ch))
	for id := range h.ch {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		h.hint(id)
	}
}

func (h *gmailHints) hint(scoutID string) {
	select {
	case h.channel(scoutID) <- struct{}{}:
	default: // a sync is already due; hints coalesce
	}
}

// openGmail builds a Gmail scout's connector. In relay-triage mode it
// lists nothing (the relay triages) but still reads and archives mail.
func (c *Core) openGmail(ctx context.Context, s scouts.Scout) (scouts.SourceConnector, error) {
	g, err := parseGmailConfig(s.Config)
	if err != nil {
		return nil, err
	}
	client, err := c.gmailClient(ctx, g.Email)
	if err != nil {
		return nil, err
	}
	// The scout's rules the pipeline can express are applied there first,
	// as the relay does: a deny rule's spam is trashed when the scout
	// trashes spam. The engine applies all of them to what comes out, so
	// with more rules than those no mail is left unread.
	rules, more, err := c.triageRules(ctx, s)
	if err != nil {
		return nil, err
	}
	pcfg := triage.Config{Scout: s.ID, ScoutName: s.Name, Rules: rules, MoreRules: more, Logger: c.log}
	if c.cfg.Model != nil {
		pcfg.Model, pcfg.Budget, pcfg.DailyTokens = c.cfg.Model, c.cfg.ModelBudget, c.cfg.ModelDailyTokens
	}
	pipe, err := triage.New(pcfg)
	if err != nil {
		return nil, err
	}
	o := gmail.ConnectorOptions{Client: client, Pipeline: pipe, AutoTrashSpam: g.AutoTrashSpam, NotBefore: s.CreatedAt,
		Cursor: gmailCursor{c: c, scoutID: s.ID, start: g.Baseline},
		Seen: func(ctx context.Context, id string) (bool, error) {
			_, err := c.DB.SuggestionByRef(ctx, s.ID, id)
			if scouts.ErrorCode(err) == scouts.ENotFound {
				return false, nil
			}
			return err == nil, err
		},
		OnRecovered: func(note string) {
			// Recorded for the scout even when the re-read found nothing
			// new (the items it did find carry the note too).
			c.log.Warn("gmail: recovered", "scout", s.ID, "note", note)
			c.auditScoutStatus(context.Background(), s.ID, "scout", protocol.ScoutOK, note)
		},
		// The learner reads the words of new mail (transiently; only
		// hashes are kept): the same quota as headers alone.
		BodyRunes: learnBodyRunes,
		Logger:    c.log.With("scout", s.ID)}
	if g.Mode == GmailRelayPing {
		o.Hints, o.PollEvery = c.gmailHints.channel(s.ID), c.cfg.PollInterval
		if s.Schedule.HasCron() {
			o.PollEvery = -1 // the scout's own schedule is its fallback poll
		}
		o.Topic, o.Watches = g.PushTopic, gmailCursor{c: c, scoutID: s.ID}
	}
	conn, err := gmail.NewConnector(o)
	if err != nil || g.Mode != GmailRelayTriage {
		return conn, err
	}
	return relayTriaged{Connector: conn, health: func() error {
		return c.cloudHealth(context.Background(), s.ID)
	}}, nil
}

// learnBodyRunes is how much of a mail's text the learner reads.
const learnBodyRunes = 4000

// relayTriaged is a relay-triage scout on the desktop: the relay lists and
// triages; the desktop reads ("read full email") and archives.
type relayTriaged struct {
	*gmail.Connector
	health func() error
}

// ListNew lists nothing; it reports the relay's last word on the scout so
// the scout's health shows it ("Gmail access expired — reconnect").
func (r relayTriaged) ListNew(context.Context, func(context.Context, []scouts.ItemRef) error) error {
	return r.health()
}
func (relayTriaged) Watch(ctx context.Context, _ func()) error {
	<-ctx.Done()
	return nil
}

func (c *Core) gmailClient(ctx context.Context, email string) (*gmail.Client, error) {
	if c.cfg.Gmail == nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "Gmail is not set up on this desktop (--google-client-id)")
	}
	ts, err := c.cfg.Gmail.TokenSource(ctx, email)
	if err != nil {
		return nil, err
	}
	return gmail.NewClient(ctx, gmail.Options{BaseURL: c.cfg.GmailAPIURL, TokenSource: ts, Logger: c.log})
}

// gmailCursor keeps a desktop Gmail scout's history id in sync_state;
// before the first sync saved one, the scout starts from its baseline.
type gmailCursor struct {
	c       *Core
	scoutID string
	start   *GmailBaseline
}

func (g gmailCursor) Load(ctx context.Context) (uint64, time.Time, error) {
	v, err := g.c.DB.SyncSeq(ctx, "gmail-cursor:"+g.scoutID)
	if err != nil {
		return 0, time.Time{}, err
	}
	if v == 0 && g.start != nil {
		return g.start.HistoryID, g.start.At, nil
	}
	at, err := g.c.DB.SyncSeq(ctx, "gmail-synced:"+g.scoutID)
	if err != nil {
		return 0, time.Time{}, err
	}
	var t time.Time
	if at > 0 {
		t = time.UnixMilli(at)
	}
	return uint64(v), t, nil
}

func (g gmailCursor) Save(ctx context.Context, cursor uint64) error {
	if err := g.c.DB.AdvanceSyncSeq(ctx, "gmail-cursor:"+g.scoutID, int64(cursor)); err != nil {
		return err
	}
	return g.c.DB.AdvanceSyncSeq(ctx, "gmail-synced:"+g.scoutID, g.c.now().UnixMilli())
}

// MailboxChanged handles relay-ping mode's hint.
func (l *relayLink) MailboxChanged(ctx context.Context, mc protocol.MailboxChanged) {
	l.c.gmailHints.hint(mc.ScoutID)
}

func isRelayGmail(s scouts.Scout) bool {
	if s.Kind != scouts.KindGmail {
		return false
	}
	g, err := parseGmailConfig(s.Config)
	return err == nil && g.Mode != GmailLocal
}

// gmailScoutOp is a Gmail scout in a relay mode as the relay is told of it.
func (c *Core) gmailScoutOp(ctx context.Context, s scouts.Scout) (protocol.ScoutConfig, error) {
	g, err := parseGmailConfig(s.Config)
	if err != nil {
		return protocol.ScoutConfig{}, err
	}
	rules, _, err := c.triageRules(ctx, s)
	if err != nil {
		return protocol.ScoutConfig{}, err
	}
	op := gmailRelayOp(s, g, rules)
	// A scout this desktop read itself before (local or relay-ping mode)
	// hands the relay its own place, so that a mode change neither skips
	// nor re-reads mail. The relay keeps its own place once it has one.
	if v, err := c.DB.SyncSeq(ctx, "gmail-cursor:"+s.ID); err == nil && v > 0 {
		op.BaselineHistoryID = strconv.FormatInt(v, 10)
	}
	return op, nil
}

// EventGmailAccounts is published when an account is connected or
// disconnected.
const EventGmailAccounts = "gmail.accounts"

func (c *Core) gmailAuth() (GmailAuth, error) {
	if c.cfg.Gmail == nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "Gmail is not set up on this desktop: start the agent with --google-client-id (see docs/gmail.md)")
	}
	return c.cfg.Gmail, nil
}

// GmailAccounts lists the connected accounts.
func (c *Core) GmailAccounts(ctx context.Context) ([]GmailAccount, error) {
	a, err := c.gmailAuth()
	if err != nil {
		return nil, err
	}
	return a.Accounts(ctx)
}

// DisconnectGmail revokes an account's access and forgets its token; its
// scouts stop until it is connected again.
func (c *Core) DisconnectGmail(ctx context.Context, email string) error {
	a, err := c.gmailAuth()
	if err != nil {
		return err
	}
	if err := a.Disconnect(ctx, email); err != nil {
		return err
	}
	list, _ := c.GmailAccounts(ctx)
	c.Bus.Publish(scouts.Event{Type: EventGmailAccounts, Data: list})
	return nil
}

// WatchExpiry and SaveWatch keep a relay-ping scout's watch expiry.
func (g gmailCursor) WatchExpiry(ctx context.Context) (time.Time, error) {
	v, err := g.c.DB.SyncSeq(ctx, "gmail-watch:"+g.scoutID)
	if err != nil || v == 0 {
		return time.Time{}, err
	}
	return time.UnixMilli(v), nil
}

func (g gmailCursor) SaveWatch(ctx context.Context, exp time.Time) error {
	return g.c.DB.AdvanceSyncSeq(ctx, "gmail-watch:"+g.scoutID, exp.UnixMilli())
}

// gmailTopic records the topic the relay named for a relay-ping scout
// and restarts the scout so its watch is set up.
func (c *Core) gmailTopic(ctx context.Context, s scouts.Scout, res protocol.ConfigResult) {
	scoutID, topic := s.ID, res.PushTopic
	if topic == "" {
		return
	}
	g, err := parseGmailConfig(s.Config)
	if err != nil || g.Mode != GmailRelayPing || g.PushTopic == topic {
		return
	}
	g.PushTopic = topic
	s.Config, _ = json.Marshal(g)
	// Strictly newer than the version being started, even within one
	// millisecond, so the engine keeps this one (see Engine.Sync).
	prev := s.UpdatedAt
	s.UpdatedAt = c.now()
	if !s.UpdatedAt.After(prev) {
		s.UpdatedAt = prev.Add(time.Millisecond)
	}
	if err := c.DB.UpdateScout(ctx, s); err != nil {
		c.log.Warn("gmail: record the relay's push topic", "scout", scoutID, "err", err)
		return
	}
	c.log.Info("gmail: relay-ping scout watches the relay's topic", "scout", scoutID, "topic", topic)
	c.Engine.Sync(s)
	c.log.Info("gmail: restarted", "scout", scoutID)
	c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
}

// gmailItem is a Gmail proposal's item. The relay read the headers this
// desktop never sees; what it says of the message is the card.
func gmailItem(it client.Item, ref *scouts.ItemRef) {
	p, meta := it.Proposal, ref.Meta
	meta.URL = gmail.MessageURL(p.SourceRef)
	meta.Reason = gmail.Why(p.Reason, p.Path)
	// The relay applied the rules it can express: the one it matched
	// decides here too.
	if id, ok := strings.CutPrefix(p.Path, "rule:"); ok { // triage.PathRule
		meta.MatchedRule = id
	}
	switch p.Verdict {
	case "spam":
		meta.Lane, meta.LaneReason = scouts.LaneSpam, "Spam: "+meta.Reason
	case "skip":
		meta.Lane, meta.LaneReason = scouts.LaneScreened, "Screened: "+meta.Reason
	}
	if meta.Title == "" {
		meta.Title = "Gmail message (its subject could not be read at delivery)"
	}
}
