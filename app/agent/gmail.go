package agent

import (
	"context"
	"log/slog"
	"sync"

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
// call answers with the keyring's actionable error instead of a token,
// until the keyring opens (unlocked, or the file keyring chosen with
// `scouts keyring use-file`): the account manager is made then.
type gmailAccounts struct {
	keyring func() (*secrets.Store, error)
	cfg     *GmailConfig
	log     *slog.Logger

	mu sync.Mutex
	m  *gmailauth.Manager
}

func newGmailAccounts(keyring func() (*secrets.Store, error), cfg *GmailConfig, log *slog.Logger) *gmailAccounts {
	g := &gmailAccounts{keyring: keyring, cfg: cfg, log: log}
	if _, err := g.manager(); err != nil {
		log.Warn("gmail: the keyring is not available; connecting Gmail will fail until it is", "err", err)
	}
	return g
}

// manager is the account manager over the keyring, made on the first
// call that finds the keyring open.
func (g *gmailAccounts) manager() (*gmailauth.Manager, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m != nil {
		return g.m, nil
	}
	store, err := g.keyring()
	if err != nil {
		return nil, scouts.Errorf(scouts.EUnavailable, "%v", err)
	}
	g.log.Info("gmail: tokens are kept in the keyring", "backend", store.Backend())
	cfg := g.cfg
	g.m = gmailauth.New(gmailauth.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.AuthURL,
		TokenURL: cfg.TokenURL, RevokeURL: cfg.RevokeURL, OpenBrowser: cfg.OpenBrowser}, store, g.log)
	return g.m, nil
}

func (g *gmailAccounts) Connect(ctx context.Context, connected func(email string)) (string, error) {
	m, err := g.manager()
	if err != nil {
		return "", err
	}
	// The flow outlives the request that started it.
	u, done, err := m.Start(context.WithoutCancel(ctx))
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
	m, err := g.manager()
	if err != nil {
		return nil, err
	}
	list, err := m.Accounts()
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
	m, err := g.manager()
	if err != nil {
		return nil, err
	}
	return m.TokenSource(ctx, email)
}

func (g *gmailAccounts) RefreshToken(_ context.Context, email string) (string, error) {
	m, err := g.manager()
	if err != nil {
		return "", err
	}
	return m.RefreshToken(email)
}

func (g *gmailAccounts) Disconnect(ctx context.Context, email string) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	return m.Disconnect(ctx, email)
}
