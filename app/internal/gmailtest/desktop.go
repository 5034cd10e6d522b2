package gmailtest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/gmailauth"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/scouts"
)

// Auth is gmaildesk.Auth over the real account manager, as the agent
// wires it, with the fake's consent page as the browser.
type Auth struct {
	t testing.TB
	g *Google
	M *gmailauth.Manager
}

// NewAuth opens the file keyring of a desktop data directory; the same
// directory after a restart finds the same accounts.
func (g *Google) NewAuth(t testing.TB, dataDir string) *Auth {
	t.Helper()
	store, err := secrets.Open(secrets.Options{Backend: secrets.BackendFile, FileDir: keyringDir(dataDir),
		Passphrase: func() (string, error) { return "a long random test passphrase", nil }})
	if err != nil {
		t.Fatal(err)
	}
	ep := g.Endpoints()
	a := &Auth{t: t, g: g}
	a.M = gmailauth.New(gmailauth.Config{ClientID: oauthfake.DefaultClientID, ClientSecret: oauthfake.DefaultClientSecret,
		AuthURL: ep.Auth, TokenURL: ep.Token, RevokeURL: ep.Revoke,
		OpenBrowser: func(u string) error {
			go g.OAuth.Consent(context.Background(), u)
			return nil
		}}, store, slog.New(slog.DiscardHandler))
	return a
}

func (a *Auth) Connect(ctx context.Context, connected func(email string)) (string, error) {
	u, done, err := a.M.Start(context.WithoutCancel(ctx))
	if err != nil {
		return "", err
	}
	go func() {
		if r := <-done; r.Err == nil {
			connected(r.Account.Email)
		}
	}()
	return u, nil
}

func (a *Auth) Accounts(context.Context) ([]gmaildesk.Account, error) {
	list, err := a.M.Accounts()
	if err != nil {
		return nil, err
	}
	out := make([]gmaildesk.Account, len(list))
	for i, x := range list {
		out[i] = gmaildesk.Account{Email: x.Email, ConnectedAt: x.ConnectedAt}
	}
	return out, nil
}

func (a *Auth) TokenSource(ctx context.Context, email string) (oauth2.TokenSource, error) {
	return a.M.TokenSource(ctx, email)
}

func (a *Auth) RefreshToken(_ context.Context, email string) (string, error) {
	return a.M.RefreshToken(email)
}

func (a *Auth) Disconnect(ctx context.Context, email string) error { return a.M.Disconnect(ctx, email) }

// Desktop is a desktop core with Gmail on the fakes.
type Desktop struct {
	t      testing.TB
	g      *Google
	Dir    string
	Auth   *Auth
	Core   *core.Core
	cancel context.CancelFunc
}

// DesktopOptions configure a desktop; RelayURL and RelayToken connect it
// to a relay.
type DesktopOptions struct {
	RelayURL, RelayToken string
	// Stopped opens the desktop without starting it: no scout runs and the
	// outbox runs nothing, as an agent that stops right after a decision
	// (what it records is all there is until the next start).
	Stopped bool
	// RelayAlarmAfter is the core's (zero: its default).
	RelayAlarmAfter time.Duration
}

// OpenConnected opens a desktop in a new data directory and connects the
// account; unless mode is gmaildesk.Local it has a relay of its own,
// returned (nil otherwise).
func (g *Google) OpenConnected(t testing.TB, mode string) (*Desktop, *Relay) {
	t.Helper()
	var o DesktopOptions
	var r *Relay
	if mode != gmaildesk.Local {
		r = g.StartRelay(t)
		o = DesktopOptions{RelayURL: r.URL, RelayToken: r.Token}
	}
	d := g.OpenDesktop(t, t.TempDir(), o)
	d.Connect()
	return d, r
}

// OpenDesktop opens (or, on an existing dir, restarts) a desktop core and
// starts its scouts. Close stops it; the test's end does too.
func (g *Google) OpenDesktop(t testing.TB, dir string, o DesktopOptions) *Desktop {
	t.Helper()
	d := &Desktop{t: t, g: g, Dir: dir, Auth: g.NewAuth(t, dir)}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	c, err := core.Open(ctx, core.Config{DataDir: dir, Version: "test", Gmail: d.Auth, GmailAPIURL: g.GmailURL,
		PollInterval: 200 * time.Millisecond, RelayURL: o.RelayURL, RelayToken: o.RelayToken,
		RelayAlarmAfter: o.RelayAlarmAfter})
	if err != nil {
		t.Fatal(err)
	}
	d.Core = c
	if o.Stopped {
		t.Cleanup(d.Close)
		return d
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// Close stops the desktop, as quitting the agent does.
func (d *Desktop) Close() {
	if d.cancel == nil {
		return
	}
	d.cancel()
	d.Core.Close()
	d.cancel = nil
}

// Connect runs "Connect Gmail" to its end.
func (d *Desktop) Connect() {
	d.t.Helper()
	if _, err := d.Core.ConnectGmail(context.Background(), false); err != nil {
		d.t.Fatal(err)
	}
	d.Until("the account to be connected", func() bool {
		list, err := d.Core.GmailAccounts(context.Background())
		return err == nil && len(list) == 1
	})
}

// Until waits for cond, looking again after each event of the desktop's
// bus: for what the desktop announces once true (cards, a scout's runs
// and health, the relay's state, connected accounts).
func (d *Desktop) Until(what string, cond func() bool, explain ...func() string) {
	d.t.Helper()
	UntilBus(d.t, d.Core.Bus, what, cond, explain...)
}

// NewScout creates a Gmail scout in mode on the connected account, enabled
// and reviewing every card.
func (d *Desktop) NewScout(mode string) scouts.Scout {
	d.t.Helper()
	cfg, _ := json.Marshal(map[string]any{"email": Account, "mode": mode})
	cr, err := d.Core.CreateScout(context.Background(), core.NewScout{Kind: scouts.KindGmail, Name: "Mail", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		d.t.Fatal(err)
	}
	return cr.Scout
}

// WaitBaseline waits until a scout knows its place in the mailbox: on the
// desktop, or on the relay r for a relay-triage scout.
func (d *Desktop) WaitBaseline(r *Relay, scoutID string) {
	d.t.Helper()
	if r != nil {
		// The relay's first sync tells the desktop nothing (the scout's
		// state stays ok); the relay's Synced hook wakes Until.
		r.Until("the scout's place in the mailbox on the relay", func() bool {
			cs, err := r.DB.GmailScout(context.Background(), scoutID)
			return err == nil && cs.Gmail.Cursor > 0
		})
		return
	}
	// The desktop's run records the place before it is announced.
	d.Until("the scout's place in the mailbox", func() bool {
		v, err := d.Core.DB.SyncSeq(context.Background(), "gmail-cursor:"+scoutID)
		return err == nil && v > 0
	}, func() string {
		runs, _ := d.Core.ScoutRuns(context.Background(), scoutID, 0)
		return fmt.Sprintf("(runs %+v)", runs)
	})
}
