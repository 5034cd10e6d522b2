package agent

import (
	"context"
	"log/slog"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/app/gmailauth"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/scouts"
)

// GmailConfig connects the agent to Google: the user's own OAuth client
// and, for tests and proxies, every endpoint.
type GmailConfig struct {
	ClientID, ClientSecret       string
	AuthURL, TokenURL, RevokeURL string
	APIURL                       string
	// Keyring and Getenv are Config.Keyring and Config.Getenv's fallbacks.
	Keyring string
	Getenv  func(string) string
	// OpenBrowser overrides the system browser (tests play it).
	OpenBrowser func(url string) error
}

// gmailAccounts adapts gmailauth to the core. The keyring may be
// unavailable (locked, no session): the agent still runs, and every Gmail
// call answers with the keyring's actionable error instead of a token.
type gmailAccounts struct {
	m       *gmailauth.Manager
	openErr error
	log     *slog.Logger
}

func newGmailAccounts(keyring func() (*secrets.Store, error), cfg *GmailConfig, log *slog.Logger) *gmailAccounts {
	g := &gmailAccounts{log: log}
	store, err := keyring()
	if err != nil {
		log.Warn("gmail: the keyring is not available; connecting Gmail will fail until it is", "err", err)
		g.openErr = scouts.Errorf(scouts.EUnavailable, "%v", err)
		return g
	}
	log.Info("gmail: tokens are kept in the keyring", "backend", store.Backend())
	g.m = gmailauth.New(gmailauth.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.AuthURL,
		TokenURL: cfg.TokenURL, RevokeURL: cfg.RevokeURL, OpenBrowser: cfg.OpenBrowser}, store, log)
	return g
}

func (g *gmailAccounts) Connect(ctx context.Context, connected func(email string)) (string, error) {
	if g.openErr != nil {
		return "", g.openErr
	}
	// The flow outlives the request that started it.
	u, done, err := g.m.Start(context.WithoutCancel(ctx))
	if err != nil {
		return "", err
	}
	go func() {
		r := <-done
		if r.Err != nil {
			g.log.Warn("gmail: connecting failed", "err", r.Err)
			return
		}
		g.log.Info("gmail: account connected", "email", r.Account.Email)
		connected(r.Account.Email)
	}()
	return u, nil
}

func (g *gmailAccounts) Accounts(context.Context) ([]gmaildesk.Account, error) {
	if g.openErr != nil {
		return nil, g.openErr
	}
	list, err := g.m.Accounts()
	if err != nil {
		return nil, err
	}
	out := make([]gmaildesk.Account, len(list))
	for i, a := range list {
		out[i] = gmaildesk.Account{Email: a.Email, ConnectedAt: a.ConnectedAt}
	}
	return out, nil
}

func (g *gmailAccounts) TokenSource(ctx context.Context, email string) (oauth2.TokenSource, error) {
	if g.openErr != nil {
		return nil, g.openErr
	}
	return g.m.TokenSource(ctx, email)
}

func (g *gmailAccounts) RefreshToken(_ context.Context, email string) (string, error) {
	if g.openErr != nil {
		return "", g.openErr
	}
	return g.m.RefreshToken(email)
}

func (g *gmailAccounts) Disconnect(ctx context.Context, email string) error {
	if g.openErr != nil {
		return g.openErr
	}
	return g.m.Disconnect(ctx, email)
}
