// Package gmailauth connects Gmail accounts to Scouts on the desktop with
// Google's OAuth flow for installed applications: the system browser
// shows Google's consent page, which redirects to a one-shot listener on
// 127.0.0.1 (authorization code with PKCE, RFC 8252). Tokens live in the
// OS keyring (app/secrets) under "gmail:<email>", and refreshed access
// tokens are written back there, which golang.org/x/oauth2 never does.
package gmailauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/app/secrets"
)

// Google's endpoints and the scopes Scouts asks for.
const (
	GoogleAuthURL   = "https://accounts.google.com/o/oauth2/v2/auth"
	GoogleTokenURL  = "https://oauth2.googleapis.com/token"
	GoogleRevokeURL = "https://oauth2.googleapis.com/revoke"
	ScopeGmail      = "https://www.googleapis.com/auth/gmail.modify"
)

const (
	keyPrefix = "gmail:"
	// DefaultConsentTimeout bounds how long Start waits for the browser.
	DefaultConsentTimeout = 10 * time.Minute
	// Refresh this long before the access token expires, so that a
	// request never leaves with a token that dies on the way.
	expiryMargin = time.Minute
)

// Config configures a Manager. Zero fields take Google's values.
type Config struct {
	ClientID, ClientSecret       string
	AuthURL, TokenURL, RevokeURL string
	// Scopes default to gmail.modify, openid and email.
	Scopes []string
	// OpenBrowser shows url to the user; nil opens the system browser
	// (xdg-open, open or rundll32).
	OpenBrowser func(url string) error
	// ConsentTimeout bounds Start's wait for the browser (10 minutes).
	ConsentTimeout time.Duration
	// Now is the clock that judges access-token expiry (time.Now).
	Now func() time.Time
}

// Account is a connected Gmail account.
type Account struct {
	Email       string
	ConnectedAt time.Time
	Scopes      []string
}

// Result is the outcome of a Start.
type Result struct {
	Account Account
	Err     error
}

// Errors a UI can tell apart with errors.Is. Keyring failures come
// through wrapped, so errors.Is(err, secrets.ErrLocked) works too.
var (
	ErrDeclined       = errors.New("gmailauth: you declined access in the browser")
	ErrStateMismatch  = errors.New("gmailauth: the browser came back from a sign-in Scouts did not start (state mismatch); start connecting again from Scouts")
	ErrNoRefreshToken = errors.New("gmailauth: Google sent no refresh token, so Scouts could not stay connected: remove Scouts at https://myaccount.google.com/permissions and connect again")
	ErrScopeDenied    = errors.New("gmailauth: Scouts was not allowed to read and organise your Gmail (the Gmail box on Google's consent page was unticked): connect again and tick it")
	ErrConsentTimeout = errors.New("gmailauth: the sign-in in the browser was not finished in time; start connecting again")
	ErrNotConnected   = errors.New("this Gmail account is not connected to Scouts: connect it first")
	// ErrReconnect: the refresh token no longer works; *AuthExpiredError
	// matches it.
	ErrReconnect = errors.New("gmailauth: Gmail access expired or was revoked — reconnect")
)

// errDamaged marks a keyring entry that cannot be used; Disconnect
// still removes it.
var errDamaged = errors.New("damaged: disconnect the account and connect it again")

// AuthExpiredError says Google refused the account's refresh token
// (invalid_grant): the user revoked access, changed their password, or
// the token went unused too long. Only connecting again helps.
type AuthExpiredError struct {
	Email string
	Err   error
}

func (e *AuthExpiredError) Error() string {
	return "gmailauth: Gmail access for " + e.Email + " expired or was revoked — reconnect"
}

// Is makes errors.Is(err, ErrReconnect) true.
func (e *AuthExpiredError) Is(target error) bool { return target == ErrReconnect }

func (e *AuthExpiredError) Unwrap() error { return e.Err }

// Manager connects, lists, serves and disconnects Gmail accounts.
type Manager struct {
	cfg   Config
	store *secrets.Store
	log   *slog.Logger
}

// New returns a Manager keeping tokens in store.
func New(cfg Config, store *secrets.Store, log *slog.Logger) *Manager {
	if cfg.AuthURL == "" {
		cfg.AuthURL = GoogleAuthURL
	}
	if cfg.TokenURL == "" {
		cfg.TokenURL = GoogleTokenURL
	}
	if cfg.RevokeURL == "" {
		cfg.RevokeURL = GoogleRevokeURL
	}
	if len(cfg.Scopes) == 0 {
		// Gmail read/modify, and the ID token's email address to know
		// which account consented.
		cfg.Scopes = []string{ScopeGmail, "openid", "email"}
	}
	if cfg.OpenBrowser == nil {
		cfg.OpenBrowser = openBrowser
	}
	if cfg.ConsentTimeout <= 0 {
		cfg.ConsentTimeout = DefaultConsentTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{cfg: cfg, store: store, log: log}
}

func (m *Manager) oauthConfig(redirect string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: m.cfg.ClientID, ClientSecret: m.cfg.ClientSecret,
		// Google takes client_secret_post; fixing the style spares
		// x/oauth2 its probing request.
		Endpoint:    oauth2.Endpoint{AuthURL: m.cfg.AuthURL, TokenURL: m.cfg.TokenURL, AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: redirect,
		Scopes:      m.cfg.Scopes,
	}
}

// record is what the keyring holds per account.
type record struct {
	Email       string        `json:"email"`
	Scopes      []string      `json:"scopes"`
	ConnectedAt time.Time     `json:"connected_at"`
	Token       *oauth2.Token `json:"token"`
}

func (m *Manager) load(email string) (*record, error) {
	b, err := m.store.Get(keyPrefix + email)
	if errors.Is(err, secrets.ErrNotFound) {
		return nil, fmt.Errorf("gmailauth: %s: %w", email, ErrNotConnected)
	}
	if err != nil {
		return nil, fmt.Errorf("gmailauth: read the token of %s: %w", email, err)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("gmailauth: the stored token of %s is %w (%v)", email, errDamaged, err)
	}
	if rec.Token == nil || rec.Token.RefreshToken == "" {
		return nil, fmt.Errorf("gmailauth: the stored token of %s is %w (no refresh token)", email, errDamaged)
	}
	return &rec, nil
}

func (m *Manager) save(rec *record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("gmailauth: encode the token of %s: %w", rec.Email, err)
	}
	if err := m.store.Set(keyPrefix+rec.Email, b); err != nil {
		return fmt.Errorf("gmailauth: save the token of %s: %w", rec.Email, err)
	}
	return nil
}

// setExpiry dates the token on the Manager's clock: x/oauth2 dates it on
// the wall clock, which the tests' clock (and the fake's) is not.
func (m *Manager) setExpiry(tok *oauth2.Token) {
	if tok.ExpiresIn > 0 {
		tok.Expiry = m.cfg.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
}

// Accounts lists the connected accounts, sorted by address.
func (m *Manager) Accounts() ([]Account, error) {
	keys, err := m.store.Keys()
	if err != nil {
		return nil, fmt.Errorf("gmailauth: list accounts: %w", err)
	}
	var out []Account
	for _, k := range keys {
		email, ok := strings.CutPrefix(k, keyPrefix)
		if !ok {
			continue
		}
		rec, err := m.load(email)
		if err != nil {
			if errors.Is(err, secrets.ErrLocked) || errors.Is(err, secrets.ErrUnavailable) || errors.Is(err, secrets.ErrBadPassphrase) {
				return nil, err
			}
			// One damaged entry must not hide the others; it still
			// shows, so that the user can disconnect it.
			m.log.Warn("gmailauth: unreadable account entry", "email", email, "err", err)
			out = append(out, Account{Email: email})
			continue
		}
		out = append(out, Account{Email: rec.Email, ConnectedAt: rec.ConnectedAt, Scopes: rec.Scopes})
	}
	slices.SortFunc(out, func(a, b Account) int { return strings.Compare(a.Email, b.Email) })
	return out, nil
}

// RefreshToken returns the account's refresh token, for the relay-triage
// mode that hands it to the relay.
func (m *Manager) RefreshToken(email string) (string, error) {
	rec, err := m.load(email)
	if err != nil {
		return "", err
	}
	return rec.Token.RefreshToken, nil
}

// Disconnect revokes the account's grant at Google and deletes its token.
// A failed revocation is logged and does not stop the deletion: the user
// asked Scouts to forget the account, and can still remove the grant at
// https://myaccount.google.com/permissions.
func (m *Manager) Disconnect(ctx context.Context, email string) error {
	rec, err := m.load(email)
	if err != nil && !errors.Is(err, errDamaged) {
		return err
	}
	if rec != nil {
		if err := m.revoke(ctx, rec.Token.RefreshToken); err != nil {
			m.log.Warn("gmailauth: could not revoke the grant at Google; forgetting the account anyway", "email", email, "err", err)
		}
	}
	if err := m.store.Delete(keyPrefix + email); err != nil && !errors.Is(err, secrets.ErrNotFound) {
		return fmt.Errorf("gmailauth: delete the token of %s: %w", email, err)
	}
	m.log.Info("gmailauth: disconnected", "email", email)
	return nil
}

func (m *Manager) revoke(ctx context.Context, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.cfg.RevokeURL, strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		return fmt.Errorf("gmailauth: revoke: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := http.DefaultClient
	if c, ok := ctx.Value(oauth2.HTTPClient).(*http.Client); ok && c != nil {
		client = c
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("gmailauth: revoke: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error == "invalid_token" {
		// Already revoked (or expired): the goal is reached.
		return nil
	}
	return fmt.Errorf("gmailauth: revoke: %s: %s", resp.Status, strings.TrimSpace(string(body)))
}
