package gmaildesk

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Gmail modes on the desktop: local (no relay) and the two relay modes.
const (
	Local       = "local"
	RelayPing   = protocol.ModeRelayPing
	RelayTriage = protocol.ModeRelayTriage
)

// Config is a Gmail scout's configuration.
type Config struct {
	Email               string `json:"email"`
	Mode                string `json:"mode"`
	AutoTrashSpam       bool   `json:"auto_trash_spam,omitempty"`
	InactivityPauseDays int    `json:"inactivity_pause_days,omitempty"`
	// WatchSent has the scout read the person's sent mail for awaiting
	// reply: a sent mail nobody it went to has answered after
	// AwaitingReplyDays (0: DefaultAwaitingReplyDays) becomes a card.
	WatchSent         bool          `json:"watch_sent,omitempty"`
	AwaitingReplyDays int           `json:"awaiting_reply_days,omitempty"`
	Rules             []triage.Rule `json:"rules,omitempty"`
	// PushTopic is set by the relay for relay-ping scouts: the topic the
	// desktop's watch publishes to.
	PushTopic string `json:"push_topic,omitempty"`
	// Baseline is set by the agent when the scout is created: where the
	// mailbox was then. The scout reads what arrived after it, however
	// late its first sync (or, in relay-triage mode, the relay) comes.
	// Absent when Gmail could not be asked then: mail received after the
	// scout's creation time is read instead.
	Baseline *Baseline `json:"baseline,omitempty"`
}

// Baseline is a mailbox's history id at a moment.
type Baseline struct {
	HistoryID uint64    `json:"history_id,string"`
	At        time.Time `json:"at"`
}

// ParseConfig reads and normalises a Gmail scout's configuration; a bad
// one is an EInvalid error that says why.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var g Config
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return g, scouts.Errorf(scouts.EInvalid, "gmail scout config: %v", err)
	}
	g.Email = strings.ToLower(strings.TrimSpace(g.Email))
	if g.Mode == "" {
		g.Mode = Local
	}
	switch g.Mode {
	case Local, RelayPing, RelayTriage:
	default:
		return g, scouts.Errorf(scouts.EInvalid, "gmail scout mode %q: want local, relay-ping or relay-triage", g.Mode)
	}
	if !strings.Contains(g.Email, "@") {
		return g, scouts.Errorf(scouts.EInvalid, "gmail scout config needs the connected account's email")
	}
	if g.InactivityPauseDays < 0 || g.InactivityPauseDays > 365 {
		return g, scouts.Errorf(scouts.EInvalid, "inactivity_pause_days must be 0 to 365")
	}
	if g.AwaitingReplyDays < 0 || g.AwaitingReplyDays > MaxAwaitingReplyDays {
		return g, scouts.Errorf(scouts.EInvalid, "awaiting_reply_days must be 1 to %d (0 or absent: %d)", MaxAwaitingReplyDays, DefaultAwaitingReplyDays)
	}
	if g.AwaitingReplyDays > 0 && !g.WatchSent {
		return g, scouts.Errorf(scouts.EInvalid, "awaiting_reply_days needs watch_sent: true (the scout reads your sent mail only when told to)")
	}
	if g.WatchSent && g.Mode == RelayTriage {
		return g, scouts.Errorf(scouts.EInvalid, "watch_sent needs local or relay-ping mode: in relay-triage mode the relay reads the mailbox, and it never reads sent mail")
	}
	if err := triage.ValidateRules(g.Rules); err != nil {
		return g, err
	}
	return g, nil
}

// Awaiting reply's bounds, in days.
const (
	DefaultAwaitingReplyDays = 3
	MaxAwaitingReplyDays     = 60
)

// AwaitAfter is how long a sent mail waits for an answer before it
// becomes a card; 0 when the scout does not watch sent mail.
func (g Config) AwaitAfter() time.Duration {
	if !g.WatchSent {
		return 0
	}
	days := g.AwaitingReplyDays
	if days == 0 {
		days = DefaultAwaitingReplyDays
	}
	return time.Duration(days) * 24 * time.Hour
}

// OnRelay reports a Gmail scout in one of the relay modes.
func OnRelay(s scouts.Scout) bool {
	if s.Kind != scouts.KindGmail {
		return false
	}
	g, err := ParseConfig(s.Config)
	return err == nil && g.Mode != Local
}

// RelayTriaged reports a Gmail scout in relay-triage mode: the relay
// lists and triages its mail.
func RelayTriaged(s scouts.Scout) bool {
	if s.Kind != scouts.KindGmail {
		return false
	}
	g, err := ParseConfig(s.Config)
	return err == nil && g.Mode == RelayTriage
}

// Check validates a Gmail scout against what the desktop has (the account
// connected, a relay for the relay modes), records where the mailbox is
// for a new one and fills a default name.
func (d *Desk) Check(ctx context.Context, s *scouts.Scout) error {
	g, err := ParseConfig(s.Config)
	if err != nil {
		return err
	}
	if d.o.Auth == nil {
		return scouts.Errorf(scouts.EInvalid, "Gmail is not set up on this desktop: start the agent with --google-client-id (see docs/gmail.md)")
	}
	if g.Mode != Local && !d.o.Host.HasRelay() {
		return scouts.Errorf(scouts.EInvalid, "%s mode needs a relay: log in to one (scouts relay login URL TOKEN), or use local mode", g.Mode)
	}
	accounts, err := d.o.Auth.Accounts(ctx)
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
		prev, err := d.o.DB.GetScout(ctx, s.ID)
		switch {
		case scouts.ErrorCode(err) == scouts.ENotFound: // a new scout
			g.Baseline = d.baseline(ctx, g.Email)
		case err != nil:
			return err
		default:
			// A changed configuration keeps where the scout started (a
			// scout from before baselines has its cursor: Gmail is not
			// asked again); on another mailbox it starts afresh.
			if pg, err := ParseConfig(prev.Config); err == nil && pg.Email == g.Email {
				g.Baseline = pg.Baseline
			} else {
				g.Baseline = d.baseline(ctx, g.Email)
			}
		}
	}
	s.Config, _ = json.Marshal(g)
	if s.Name == "" {
		s.Name = "Gmail " + g.Email
	}
	return nil
}

// baseline reads where the mailbox is now, for a new scout. It does not
// hold up the creation for long: if Gmail does not answer (a rate limit,
// no network), the scout reads from its creation time instead.
func (d *Desk) baseline(ctx context.Context, email string) *Baseline {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ts, err := d.o.Auth.TokenSource(ctx, email)
	if err == nil {
		var client *gmail.Client
		client, err = gmail.NewClient(ctx, gmail.Options{BaseURL: d.o.APIURL, TokenSource: ts, Logger: d.log,
			Attempts: 2, MaxWait: 2 * time.Second})
		if err == nil {
			var hid uint64
			if _, hid, err = client.Profile(ctx); err == nil {
				return &Baseline{HistoryID: hid, At: d.o.Now()}
			}
		}
	}
	d.log.Info("gmail: where the mailbox is could not be read; the new scout reads the mail received since its creation instead",
		"email", email, "err", err)
	return nil
}
