// Package oauthfake is a fake of Google's OAuth 2.0 and OpenID Connect
// endpoints for installed (desktop) applications: the consent page
// (authorization code with PKCE, loopback redirect), the token endpoint
// (code exchange and refresh), revocation, discovery and the signing keys.
// It answers the way Google does — error bodies, single-use codes,
// refresh tokens only on offline access and first consent, refresh tokens
// that die with revocation — so that client code tested against it works
// against Google.
//
// A Server is an http.Handler; serve it with httptest and point the
// client's endpoints at EndpointsAt(url). Consent plays the user's
// browser. AccessTokenEmail lets a fake API (fakegoogle/gmailfake) accept
// only live access tokens, and MintIDToken forges ID tokens signed with
// the published keys (or a foreign one), such as the OIDC tokens Pub/Sub
// attaches to push deliveries.
package oauthfake

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Paths Google serves these endpoints at.
const (
	AuthPath      = "/o/oauth2/v2/auth"
	TokenPath     = "/token"
	RevokePath    = "/revoke"
	CertsPath     = "/oauth2/v3/certs"
	DiscoveryPath = "/.well-known/openid-configuration"
)

// GoogleIssuer is the iss of Google's ID tokens.
const GoogleIssuer = "https://accounts.google.com"

// Defaults for Options.
const (
	DefaultClientID     = "1234567890-fake.apps.googleusercontent.com"
	DefaultClientSecret = "GOCSPX-fake-client-secret"
	DefaultAccount      = "you@example.com"
	DefaultAccessTTL    = time.Hour
)

// Options configure a Server.
type Options struct {
	// ClientID and ClientSecret of the one registered (desktop) client.
	ClientID, ClientSecret string
	// Account is the Google account that consents, unless the request
	// carries a login_hint or SetAccount changed it.
	Account string
	// Now is the clock (nil: time.Now); see Clock.
	Now func() time.Time
	// AccessTTL is how long access tokens live (Google: one hour).
	AccessTTL time.Duration
	// RequiredScopes must all be in the authorization request's scope,
	// or the consent page answers 400 (a test's way to assert them).
	RequiredScopes []string
}

// Endpoints are the URLs of a Server served at some base URL.
type Endpoints struct {
	Auth, Token, Revoke, Certs, Discovery string
}

// EndpointsAt returns the endpoints of a Server served at base (e.g. an
// httptest.Server's URL).
func EndpointsAt(base string) Endpoints {
	return Endpoints{Auth: base + AuthPath, Token: base + TokenPath, Revoke: base + RevokePath,
		Certs: base + CertsPath, Discovery: base + DiscoveryPath}
}

// Stats count what the Server answered.
type Stats struct {
	Consents       int // authorization requests granted
	Denials        int // authorization requests denied (SetDeny)
	CodeExchanges  int // successful authorization_code grants
	RefreshGrants  int // successful refresh_token grants
	FailedGrants   int // token requests answered with an error
	Revocations    int // successful calls to the revoke endpoint
	IDTokensMinted int // ID tokens signed (grants and MintIDToken)
}

// TokenInfo describes a live access token.
type TokenInfo struct {
	Email    string
	ClientID string
	Scopes   []string
	Expiry   time.Time
}

// Server is the fake. It is safe for concurrent use.
type Server struct {
	o       Options
	key     *rsa.PrivateKey
	kid     string
	foreign func() *rsa.PrivateKey

	mu          sync.Mutex
	account     string
	deny        bool
	omitRefresh bool
	unchecked   []string
	codes       map[string]*authCode
	access      map[string]*accessToken
	refresh     map[string]*grant
	consented   map[string]bool // client + account that consented to offline access
	stats       Stats
}

// grant is what one consent (one code exchange) gave: its refresh token,
// if any, and every access token minted from it die together.
type grant struct {
	clientID, account string
	scopes            []string
	refresh           string
	revoked           bool
}

type accessToken struct {
	g       *grant
	expires time.Time
}

type authCode struct {
	clientID, redirectURI, challenge, account, nonce string
	scopes                                           []string
	issueRefresh                                     bool
	expires                                          time.Time
	used                                             bool
	minted                                           *grant
}

// New starts a fake with a fresh RSA signing key.
func New(o Options) *Server {
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	if o.ClientSecret == "" {
		o.ClientSecret = DefaultClientSecret
	}
	if o.Account == "" {
		o.Account = DefaultAccount
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AccessTTL <= 0 {
		o.AccessTTL = DefaultAccessTTL
	}
	key := mustKey()
	return &Server{
		o:         o,
		key:       key,
		kid:       keyID(&key.PublicKey),
		foreign:   sync.OnceValue(mustKey),
		account:   o.Account,
		codes:     map[string]*authCode{},
		access:    map[string]*accessToken{},
		refresh:   map[string]*grant{},
		consented: map[string]bool{},
	}
}

func mustKey() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic("oauthfake: generate RSA key: " + err.Error())
	}
	return k
}

// ServeHTTP routes to Google's endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case AuthPath:
		s.authorize(w, r)
	case TokenPath:
		s.token(w, r)
	case RevokePath:
		s.revoke(w, r)
	case CertsPath:
		s.certs(w, r)
	case DiscoveryPath:
		s.discovery(w, r)
	default:
		http.NotFound(w, r)
	}
}

// SetAccount changes the account that consents from now on.
func (s *Server) SetAccount(email string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.account = email
}

// SetDeny makes the user click "Cancel" on the consent page: the browser
// is redirected with error=access_denied.
func (s *Server) SetDeny(deny bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deny = deny
}

// SetOmitRefreshToken makes code exchanges answer without a refresh
// token, as Google does for a repeated consent without prompt=consent.
func (s *Server) SetOmitRefreshToken(omit bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.omitRefresh = omit
}

// SetUncheckedScopes makes the user untick these scopes on Google's
// granular consent screen: they are left out of what is granted.
func (s *Server) SetUncheckedScopes(scopes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unchecked = slices.Clone(scopes)
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// AccessTokenEmail returns the account of a live access token: not
// expired on the fake's clock, not revoked. Its signature fits
// gmailfake.Options.Authorize.
func (s *Server) AccessTokenEmail(tok string) (email string, ok bool) {
	info, ok := s.AccessTokenInfo(tok)
	return info.Email, ok
}

// AccessTokenInfo describes a live access token, as Google's tokeninfo
// endpoint would.
func (s *Server) AccessTokenInfo(tok string) (TokenInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.access[tok]
	if a == nil || a.g.revoked || !s.o.Now().Before(a.expires) {
		return TokenInfo{}, false
	}
	return TokenInfo{Email: a.g.account, ClientID: a.g.clientID, Scopes: slices.Clone(a.g.scopes), Expiry: a.expires}, true
}

// Revoked reports whether tok is a refresh or access token this fake
// issued and that has since been revoked.
func (s *Server) Revoked(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grantOf(tok)
	return g != nil && g.revoked
}

// Revoke revokes tok (refresh or access token) and everything minted with
// it, as the user removing the app from their Google account does. It
// reports whether the token was known.
func (s *Server) Revoke(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.grantOf(tok)
	if g == nil {
		return false
	}
	g.revoked = true
	return true
}

// RevokeAccount revokes every grant of account, as the user removing the
// app from their Google account does, and returns how many it revoked: a
// test that does not hold the product's tokens revokes them this way.
func (s *Server) RevokeAccount(account string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, g := range s.refresh {
		if strings.EqualFold(g.account, account) && !g.revoked {
			g.revoked = true
			n++
		}
	}
	for _, a := range s.access {
		if strings.EqualFold(a.g.account, account) && !a.g.revoked {
			a.g.revoked = true
			n++
		}
	}
	return n
}

// ExpireAccessTokens ends every live access token of account before its
// expiry while its refresh tokens stay good, as Google does now and then
// (a password change on another session, a security event, a server
// rotating keys): the API answers 401 and a refresh is the cure. It
// returns how many tokens it ended.
func (s *Server) ExpireAccessTokens(account string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.o.Now()
	n := 0
	for tok, a := range s.access {
		if strings.EqualFold(a.g.account, account) && now.Before(a.expires) {
			delete(s.access, tok)
			n++
		}
	}
	return n
}

func (s *Server) grantOf(tok string) *grant {
	if g := s.refresh[tok]; g != nil {
		return g
	}
	if a := s.access[tok]; a != nil {
		return a.g
	}
	return nil
}

// mintAccess issues an access token for g; s.mu is held.
func (s *Server) mintAccess(g *grant) (tok string, ttl time.Duration) {
	tok = "ya29.fake-" + randomString(32)
	s.access[tok] = &accessToken{g: g, expires: s.o.Now().Add(s.o.AccessTTL)}
	return tok, s.o.AccessTTL
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Clock is a settable clock for Options.Now (and the code under test).
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock that stands at t until moved.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
