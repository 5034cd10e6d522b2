package core

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// EventGmailConnected is published when the user consented in the
// browser and the account is connected; its data is a GmailConnected.
const EventGmailConnected = "gmail.connected"

// GmailConnected is what connecting an account did.
type GmailConnected struct {
	Email string
	// Scout is the scout added for the account (Added), or on a
	// reconnect the first of its scouts, which run again; zero when the
	// account has none.
	Scout scouts.Scout
	Mode  string
	Added bool
	// AddError says why the scout asked for could not be added.
	AddError string
}

// ConnectGmail starts connecting an account (see GmailAuth.Connect). With
// addScout (the tray's "Connect Gmail…", whose promise is that mail starts
// arriving), the account also gets a scout once the user has consented,
// unless it has one already: enabled, reviewing every card, in the default
// mode (see DefaultGmailMode).
func (c *Core) ConnectGmail(ctx context.Context, addScout bool) (string, error) {
	a, err := c.gmailAuth()
	if err != nil {
		return "", err
	}
	return a.Connect(ctx, func(email string) { c.gmailConnected(context.Background(), email, addScout) })
}

// gmailConnected runs when an account was connected: scouts of that
// account that were failing for want of a token restart (in relay-triage
// mode the relay is handed the new token), or one is added if asked.
func (c *Core) gmailConnected(ctx context.Context, email string, addScout bool) {
	list, _ := c.GmailAccounts(ctx)
	c.Bus.Publish(scouts.Event{Type: EventGmailAccounts, Data: list})
	all, err := c.DB.ListScouts(ctx)
	if err != nil {
		c.log.Warn("gmail: scouts of a connected account", "email", email, "err", err)
		return
	}
	out := GmailConnected{Email: email}
	for _, s := range all {
		if s.Kind != scouts.KindGmail {
			continue
		}
		g, err := parseGmailConfig(s.Config)
		if err != nil || !strings.EqualFold(g.Email, email) {
			continue
		}
		if out.Scout.ID == "" {
			out.Scout, out.Mode = s, g.Mode
		}
		if g.Mode == GmailRelayTriage {
			c.clearCloudStatus(ctx, s.ID)
		}
		c.Engine.Sync(s)
		// A reconnect hands the relay the new token.
		if err := c.queueScoutOp(ctx, protocol.TypeScoutUpdate, s, ""); err != nil {
			c.log.Warn("gmail: hand the relay the new token", "scout", s.ID, "err", err)
		}
	}
	if addScout && out.Scout.ID == "" {
		out.Mode = c.DefaultGmailMode(ctx)
		cfg, _ := json.Marshal(GmailConfig{Email: strings.ToLower(email), Mode: out.Mode})
		cr, err := c.CreateScout(ctx, NewScout{Kind: scouts.KindGmail, Review: true, Enabled: true, Config: cfg})
		if err != nil {
			out.AddError = err.Error()
			c.log.Warn("gmail: add a scout for the connected account", "email", email, "err", err)
		} else {
			out.Scout, out.Added = cr.Scout, true
			c.log.Info("gmail: scout added for the connected account", "email", email, "scout", cr.Scout.ID, "mode", out.Mode)
		}
	}
	c.Bus.Publish(scouts.Event{Type: EventGmailConnected, Data: out})
}

// DefaultGmailMode is the mode a Gmail scout added for the user gets:
// the gmail_mode setting, else relay-triage when the desktop has a relay
// (mail is triaged while the computer is off) and local without one. A
// relay mode without a relay falls back to local.
func (c *Core) DefaultGmailMode(ctx context.Context) string {
	if c.currentRelay() == nil {
		return GmailLocal
	}
	st, err := c.Settings(ctx)
	if err != nil || st.GmailMode == "" {
		return GmailRelayTriage
	}
	return st.GmailMode
}
