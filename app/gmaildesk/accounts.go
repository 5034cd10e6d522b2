package gmaildesk

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// EventAccounts is published when an account is connected or
// disconnected; its data is the accounts.
const EventAccounts = "gmail.accounts"

// EventConnected is published when the user consented in the browser and
// the account is connected; its data is a Connected.
const EventConnected = "gmail.connected"

// Connected is what connecting an account did.
type Connected struct {
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

func (d *Desk) auth() (Auth, error) {
	if d.o.Auth == nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "Gmail is not set up on this desktop: start the agent with --google-client-id (see docs/gmail.md)")
	}
	return d.o.Auth, nil
}

// Accounts lists the connected accounts.
func (d *Desk) Accounts(ctx context.Context) ([]Account, error) {
	a, err := d.auth()
	if err != nil {
		return nil, err
	}
	return a.Accounts(ctx)
}

// Disconnect revokes an account's access and forgets its token; its
// scouts stop until it is connected again.
func (d *Desk) Disconnect(ctx context.Context, email string) error {
	a, err := d.auth()
	if err != nil {
		return err
	}
	if err := a.Disconnect(ctx, email); err != nil {
		return err
	}
	list, _ := d.Accounts(ctx)
	d.o.Host.Publish(scouts.Event{Type: EventAccounts, Data: list})
	return nil
}

// Connect starts connecting an account (see Auth.Connect). With addScout
// (the tray's "Connect Gmail…", whose promise is that mail starts
// arriving), the account also gets a scout once the user has consented,
// unless it has one already: enabled, reviewing every card, in the default
// mode (see DefaultMode).
func (d *Desk) Connect(ctx context.Context, addScout bool) (string, error) {
	a, err := d.auth()
	if err != nil {
		return "", err
	}
	return a.Connect(ctx, func(email string) { d.connected(context.Background(), email, addScout) })
}

// connected runs when an account was connected: scouts of that account
// that were failing for want of a token restart (in relay-triage mode the
// relay is handed the new token), or one is added if asked.
func (d *Desk) connected(ctx context.Context, email string, addScout bool) {
	list, _ := d.Accounts(ctx)
	d.o.Host.Publish(scouts.Event{Type: EventAccounts, Data: list})
	all, err := d.o.DB.ListScouts(ctx)
	if err != nil {
		d.log.Warn("gmail: scouts of a connected account", "email", email, "err", err)
		return
	}
	out := Connected{Email: email}
	for _, s := range all {
		if s.Kind != scouts.KindGmail {
			continue
		}
		g, err := ParseConfig(s.Config)
		if err != nil || !strings.EqualFold(g.Email, email) {
			continue
		}
		if out.Scout.ID == "" {
			out.Scout, out.Mode = s, g.Mode
		}
		if g.Mode == RelayTriage {
			d.o.Host.ClearRelayHealth(ctx, s.ID)
		}
		d.o.Host.Restart(ctx, s)
		// A reconnect hands the relay the new token.
		if err := d.o.Host.QueueScoutOp(ctx, protocol.TypeScoutUpdate, s); err != nil {
			d.log.Warn("gmail: hand the relay the new token", "scout", s.ID, "err", err)
		}
	}
	if addScout && out.Scout.ID == "" {
		out.Mode = d.DefaultMode(ctx)
		cfg, _ := json.Marshal(Config{Email: strings.ToLower(email), Mode: out.Mode})
		s, err := d.o.Host.AddScout(ctx, cfg)
		if err != nil {
			out.AddError = err.Error()
			d.log.Warn("gmail: add a scout for the connected account", "email", email, "err", err)
		} else {
			out.Scout, out.Added = s, true
			d.log.Info("gmail: scout added for the connected account", "email", email, "scout", s.ID, "mode", out.Mode)
		}
	}
	d.o.Host.Publish(scouts.Event{Type: EventConnected, Data: out})
}

// DefaultMode is the mode a Gmail scout added for the user gets: the
// user's setting, else relay-triage when the desktop has a relay (mail is
// triaged while the computer is off) and local without one. A relay mode
// without a relay falls back to local.
func (d *Desk) DefaultMode(ctx context.Context) string {
	if !d.o.Host.HasRelay() {
		return Local
	}
	m, err := d.o.Host.ModeSetting(ctx)
	if err != nil || m == "" {
		return RelayTriage
	}
	return m
}
