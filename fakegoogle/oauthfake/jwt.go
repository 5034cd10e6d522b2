package oauthfake

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"time"
)

// IDClaims are the claims of an ID token MintIDToken signs. Zero fields
// get Google's usual values, as noted; everything else is signed as
// given, so tests can forge wrong audiences, unverified emails, expired
// tokens or foreign signatures.
type IDClaims struct {
	Issuer          string    // "": GoogleIssuer
	Audience        string    // "": the client ID
	AuthorizedParty string    // azp; "": left out
	Subject         string    // "": a stable 21-digit number derived from Email
	Email           string    // "": left out
	EmailVerified   bool      // signed as given
	IssuedAt        time.Time // zero: the fake's now
	Expiry          time.Time // zero: IssuedAt + 1 h
	Nonce           string    // "": left out
	// ForeignKey signs with a key the JWKS does not publish, under the
	// published key's kid: a forgery only signature checking catches.
	ForeignKey bool
}

// MintIDToken signs an ID token (RS256) with the fake's key. Google signs
// Pub/Sub push tokens with the same keys: for one, set Audience to the
// push endpoint's audience, Email to the push service account and
// EmailVerified.
func (s *Server) MintIDToken(c IDClaims) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signLocked(c)
}

// signLocked signs c; s.mu is held.
func (s *Server) signLocked(c IDClaims) string {
	if c.Issuer == "" {
		c.Issuer = GoogleIssuer
	}
	if c.Audience == "" {
		c.Audience = s.o.ClientID
	}
	if c.Subject == "" {
		c.Subject = subjectFor(c.Email)
	}
	if c.IssuedAt.IsZero() {
		c.IssuedAt = s.o.Now()
	}
	if c.Expiry.IsZero() {
		c.Expiry = c.IssuedAt.Add(time.Hour)
	}
	claims := map[string]any{
		"iss":            c.Issuer,
		"aud":            c.Audience,
		"sub":            c.Subject,
		"email_verified": c.EmailVerified,
		"iat":            c.IssuedAt.Unix(),
		"exp":            c.Expiry.Unix(),
	}
	if c.AuthorizedParty != "" {
		claims["azp"] = c.AuthorizedParty
	}
	if c.Email != "" {
		claims["email"] = c.Email
	}
	if c.Nonce != "" {
		claims["nonce"] = c.Nonce
	}
	key := s.key
	if c.ForeignKey {
		key = s.foreign()
	}
	s.stats.IDTokensMinted++
	return signJWT(key, s.kid, claims)
}

func signJWT(key *rsa.PrivateKey, kid string, claims map[string]any) string {
	hdr, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"})
	payload, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(hdr) + "." + base64.RawURLEncoding.EncodeToString(payload)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		panic("oauthfake: sign: " + err.Error())
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// subjectFor derives a Google-like subject (a 21-digit number) that stays
// the same for an address across fakes.
func subjectFor(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(email)))
	n := new(big.Int).SetBytes(sum[:])
	n.Mod(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil))
	return "1" + leftPad(n.String(), 20)
}

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

func keyID(pub *rsa.PublicKey) string {
	sum := sha256.Sum256(pub.N.Bytes())
	return hex.EncodeToString(sum[:20])
}

// certs serves the JWKS with the one published key.
func (s *Server) certs(w http.ResponseWriter, r *http.Request) {
	pub := s.key.PublicKey
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]string{{
		"kty": "RSA",
		"alg": "RS256",
		"use": "sig",
		"kid": s.kid,
		"n":   base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		"e":   base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
	}}})
}

// discovery serves the OpenID configuration; the endpoints are on the
// host the request came to, the issuer is Google's.
func (s *Server) discovery(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	e := EndpointsAt(scheme + "://" + r.Host)
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                GoogleIssuer,
		"authorization_endpoint":                e.Auth,
		"token_endpoint":                        e.Token,
		"revocation_endpoint":                   e.Revoke,
		"jwks_uri":                              e.Certs,
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic"},
		"claims_supported":                      []string{"aud", "email", "email_verified", "exp", "iat", "iss", "sub", "azp", "nonce"},
		"code_challenge_methods_supported":      []string{"S256"}, // Google also takes plain; this fake insists on S256
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
	})
}
