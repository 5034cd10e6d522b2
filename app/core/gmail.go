package core

import (
	"context"
	"encoding/json"

	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// The desktop's Gmail scouts live in app/gmaildesk; this is what the core
// does for them (gmailHost) and what it offers the local API of them.

// newGmail builds the Gmail side of the core.
func (c *Core) newGmail() *gmaildesk.Desk {
	return gmaildesk.New(gmaildesk.Options{Auth: c.cfg.Gmail, APIURL: c.cfg.GmailAPIURL, DB: c.DB, Host: gmailHost{c},
		Logger: c.log, Now: c.now, PollInterval: c.cfg.PollInterval,
		Model: c.cfg.Model, ModelBudget: c.cfg.ModelBudget, ModelDailyTokens: c.cfg.ModelDailyTokens})
}

// gmailHost is the core as app/gmaildesk sees it.
type gmailHost struct{ c *Core }

func (h gmailHost) HasRelay() bool { return h.c.relay.URL() != "" }

func (h gmailHost) TriageRules(ctx context.Context, s scouts.Scout) ([]triage.Rule, bool, error) {
	return h.c.rules.TriageRules(ctx, s)
}

func (h gmailHost) RelayHealth(ctx context.Context, scoutID string) error {
	return h.c.relay.Health(ctx, scoutID)
}

func (h gmailHost) ClearRelayHealth(ctx context.Context, scoutID string) {
	h.c.relay.ClearHealth(ctx, scoutID)
}

func (h gmailHost) AuditScoutStatus(ctx context.Context, scoutID, actor, state, message string) {
	h.c.auditScoutStatus(ctx, scoutID, actor, state, message)
}

func (h gmailHost) QueueScoutOp(ctx context.Context, typ string, s scouts.Scout) error {
	return h.c.queueScoutOp(ctx, typ, s, "")
}

func (h gmailHost) Restart(_ context.Context, s scouts.Scout) { h.c.defs.Restart(s) }

func (h gmailHost) Publish(ev scouts.Event) { h.c.Bus.Publish(ev) }

func (h gmailHost) AddScout(ctx context.Context, config json.RawMessage) (scouts.Scout, error) {
	cr, err := h.c.CreateScout(ctx, NewScout{Kind: scouts.KindGmail, Review: true, Enabled: true, Config: config})
	return cr.Scout, err
}

func (h gmailHost) ModeSetting(ctx context.Context) (string, error) {
	st, err := h.c.Settings(ctx)
	return st.GmailMode, err
}

// ConnectGmail starts connecting a Gmail account; see gmaildesk.Desk.Connect.
func (c *Core) ConnectGmail(ctx context.Context, addScout bool) (string, error) {
	return c.gmail.Connect(ctx, addScout)
}

// GmailAccounts lists the connected Gmail accounts.
func (c *Core) GmailAccounts(ctx context.Context) ([]gmaildesk.Account, error) {
	return c.gmail.Accounts(ctx)
}

// DisconnectGmail revokes an account's access and forgets its token; its
// scouts stop until it is connected again.
func (c *Core) DisconnectGmail(ctx context.Context, email string) error {
	return c.gmail.Disconnect(ctx, email)
}
