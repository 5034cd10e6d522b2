// Package pushauth decides whether a request to the Gmail push endpoint
// really comes from the relay's Pub/Sub subscription.
//
// In production the subscription is configured with OIDC authentication:
// Pub/Sub signs a Google ID token for a service account and sends it as a
// bearer token. It is verified with go-oidc against Google's published keys
// (signature, expiry, issuer, audience) and then its email and
// email_verified claims are checked against the configured service account
// — idtoken.Validate would check only the first three.
//
// Google's Pub/Sub emulator sends no Authorization header at all, so a
// self-hosted relay (or a test) can instead require a shared secret in the
// push URL's query (?token=…), compared in constant time. Either check, when
// configured, is sufficient; with neither configured New refuses.
package pushauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// Google's defaults.
const (
	DefaultIssuer  = "https://accounts.google.com"
	DefaultJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"
)

// Config configures the verifier.
type Config struct {
	// Audience is the audience the subscription puts in its tokens (by
	// default Pub/Sub uses the push endpoint URL).
	Audience string
	// ServiceAccount is the email of the service account the
	// subscription signs as.
	ServiceAccount string
	Issuer         string // default DefaultIssuer
	JWKSURL        string // default DefaultJWKSURL
	HTTPClient     *http.Client
	Now            func() time.Time
	// Secret, when set, admits requests whose query has token=Secret.
	Secret string
}

// Verifier checks push requests.
type Verifier struct {
	cfg Config
	v   *oidc.IDTokenVerifier
}

// New builds a verifier. It fetches no key until the first token arrives.
func New(cfg Config) (*Verifier, error) {
	oidcOn := cfg.Audience != "" || cfg.ServiceAccount != ""
	if oidcOn && (cfg.Audience == "" || cfg.ServiceAccount == "") {
		return nil, errors.New("pushauth: OIDC push authentication needs both the audience and the service account email")
	}
	if !oidcOn && cfg.Secret == "" {
		return nil, errors.New("pushauth: configure OIDC push authentication (audience and service account) or a push secret; the endpoint is never left open")
	}
	if cfg.Secret != "" && len(cfg.Secret) < 16 {
		return nil, errors.New("pushauth: the push secret must be at least 16 characters")
	}
	v := &Verifier{cfg: cfg}
	if oidcOn {
		if cfg.Issuer == "" {
			cfg.Issuer = DefaultIssuer
		}
		if cfg.JWKSURL == "" {
			cfg.JWKSURL = DefaultJWKSURL
		}
		ctx := context.Background()
		if cfg.HTTPClient != nil {
			ctx = oidc.ClientContext(ctx, cfg.HTTPClient)
		}
		keys := oidc.NewRemoteKeySet(ctx, cfg.JWKSURL)
		v.v = oidc.NewVerifier(cfg.Issuer, keys, &oidc.Config{ClientID: cfg.Audience, Now: cfg.Now,
			SupportedSigningAlgs: []string{oidc.RS256}})
		v.cfg = cfg
	}
	return v, nil
}

// Error is a refused push; its message is safe to log (no token).
type Error struct{ Reason string }

func (e *Error) Error() string { return "push refused: " + e.Reason }

// Verify admits or refuses a push request.
func (v *Verifier) Verify(ctx context.Context, r *http.Request) error {
	if v.cfg.Secret != "" {
		if got := r.URL.Query().Get("token"); got != "" {
			if subtle.ConstantTimeCompare([]byte(got), []byte(v.cfg.Secret)) == 1 {
				return nil
			}
			return &Error{Reason: "wrong push secret"}
		}
	}
	if v.v == nil {
		return &Error{Reason: "no push secret in the URL"}
	}
	auth := r.Header.Get("Authorization")
	raw, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || strings.TrimSpace(raw) == "" {
		return &Error{Reason: "no bearer token (is the subscription's OIDC authentication on?)"}
	}
	tok, err := v.v.Verify(ctx, strings.TrimSpace(raw))
	if err != nil {
		return &Error{Reason: "token does not verify: " + describe(err)}
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
	}
	if err := tok.Claims(&claims); err != nil {
		return &Error{Reason: "token claims: " + err.Error()}
	}
	if !strings.EqualFold(claims.Email, v.cfg.ServiceAccount) {
		return &Error{Reason: fmt.Sprintf("token is for %q, not the push service account", claims.Email)}
	}
	if !claims.EmailVerified {
		return &Error{Reason: "token's email is not verified"}
	}
	return nil
}

// describe keeps go-oidc's reason without echoing token material.
func describe(err error) string {
	var exp *oidc.TokenExpiredError
	if errors.As(err, &exp) {
		return "expired at " + exp.Expiry.UTC().Format(time.RFC3339)
	}
	s := err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
