// Package gmaildesk is the desktop's side of Gmail scouts: their
// configuration and its checks, the connector in each mode (local,
// relay-ping, relay-triage), what the relay is told of them and what it
// delivers, the Gmail actions their cards offer, and the connected
// accounts. The core (app/core) registers it as the gmail kind and hands
// it what only the core has through Host; the relay's side is
// relay/gmailscout, and Gmail itself connectors/gmail.
package gmaildesk

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Auth is where the desktop's Gmail accounts live: the OAuth flow and the
// keyring (app/gmailauth).
type Auth interface {
	// Connect starts the consent flow and returns the URL the browser was
	// sent to; the account appears when the user has consented, and then
	// connected is called with its address (once, from another
	// goroutine; never if the flow fails).
	Connect(ctx context.Context, connected func(email string)) (authURL string, err error)
	Accounts(ctx context.Context) ([]Account, error)
	TokenSource(ctx context.Context, email string) (oauth2.TokenSource, error)
	RefreshToken(ctx context.Context, email string) (string, error)
	Disconnect(ctx context.Context, email string) error
}

// Account is a connected account.
type Account struct {
	Email       string
	ConnectedAt time.Time
}

// Host is what the desktop's core does for its Gmail scouts.
type Host interface {
	// HasRelay reports whether the desktop has a relay now (the relay
	// modes need one).
	HasRelay() bool
	// TriageRules is what a scout's triage pipeline (the relay's, or the
	// desktop's own) applies before its heuristics: the scout's rules it
	// can express, from the top; more reports enabled rules beyond them,
	// which the desktop applies when the card arrives.
	TriageRules(ctx context.Context, s scouts.Scout) (rules []triage.Rule, more bool, err error)
	// RelayHealth is the relay's last word on a scout it runs (nil: well,
	// or never said otherwise); ClearRelayHealth forgets it.
	RelayHealth(ctx context.Context, scoutID string) error
	ClearRelayHealth(ctx context.Context, scoutID string)
	// AuditScoutStatus records news about a scout as a whole.
	AuditScoutStatus(ctx context.Context, scoutID, actor, state, message string)
	// QueueScoutOp tells the relay, through the outbox, about a scout it
	// runs (Desk.RelayOp is what it sends).
	QueueScoutOp(ctx context.Context, typ string, s scouts.Scout) error
	// Restart runs a scout anew with the given version of it (or, while a
	// change to the scouts' definitions is being made, once it is done,
	// as the database then has it).
	Restart(ctx context.Context, s scouts.Scout)
	// Publish sends an event to the live stream.
	Publish(ev scouts.Event)
	// AddScout creates a Gmail scout with this configuration, enabled and
	// reviewing every card, as the user would.
	AddScout(ctx context.Context, config json.RawMessage) (scouts.Scout, error)
	// ModeSetting is the user's choice of mode for the scouts added for
	// them ("" when none).
	ModeSetting(ctx context.Context) (string, error)
}

// Options configure a Desk.
type Options struct {
	// Auth is nil when Gmail is not set up on this desktop: Gmail scouts
	// are then refused and their actions not offered.
	Auth Auth
	// APIURL points the client at Google (default) or a fake.
	APIURL string
	DB     *localdb.DB
	Host   Host
	Logger *slog.Logger
	Now    func() time.Time
	// PollInterval is a relay-ping scout's fallback poll.
	PollInterval time.Duration
	// Model, ModelBudget and ModelDailyTokens configure the optional LLM
	// step of the triage on this desktop.
	Model            triage.Model
	ModelBudget      triage.Budget
	ModelDailyTokens int
}

// Desk runs a desktop's Gmail scouts. Its methods are safe for concurrent
// use.
type Desk struct {
	o     Options
	log   *slog.Logger
	hints hints
}

// New returns a Desk.
func New(o Options) *Desk {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Desk{o: o, log: o.Logger}
}
