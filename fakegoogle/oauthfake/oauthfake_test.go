package oauthfake

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

func TestCodeFlow(t *testing.T) {
	e := newEnv(t, Options{RequiredScopes: []string{gmailModify}})
	q, verifier := e.consent(t, oauth2.AccessTypeOffline)
	if q.Get("state") != "state-123" || q.Get("code") == "" || q.Get("error") != "" {
		t.Fatalf("redirect parameters %v", q)
	}
	if got := strings.Fields(q.Get("scope")); !slices.Contains(got, "https://www.googleapis.com/auth/userinfo.email") || !slices.Contains(got, gmailModify) {
		t.Fatalf("granted scope %q", got)
	}
	tok, err := e.conf.Exchange(e.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" || tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 {
		t.Fatalf("token %+v", tok)
	}
	if email, ok := e.s.AccessTokenEmail(tok.AccessToken); !ok || email != DefaultAccount {
		t.Fatalf("AccessTokenEmail: %q %v", email, ok)
	}
	info, _ := e.s.AccessTokenInfo(tok.AccessToken)
	if !slices.Contains(info.Scopes, gmailModify) || !info.Expiry.Equal(e.clock.Now().Add(time.Hour)) {
		t.Fatalf("AccessTokenInfo %+v", info)
	}

	// A real OIDC verifier accepts the ID token against the JWKS.
	raw, _ := tok.Extra("id_token").(string)
	v := oidc.NewVerifier(GoogleIssuer, oidc.NewRemoteKeySet(e.ctx, e.ts.URL+CertsPath), &oidc.Config{ClientID: e.conf.ClientID, Now: e.clock.Now})
	idt, err := v.Verify(e.ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
		AZP           string `json:"azp"`
	}
	if err := idt.Claims(&claims); err != nil || claims.Email != DefaultAccount || !claims.EmailVerified || claims.AZP != e.conf.ClientID {
		t.Fatalf("claims %+v, %v", claims, err)
	}
	if len(idt.Subject) != 21 {
		t.Fatalf("subject %q", idt.Subject)
	}

	// Codes are single-use; a replay kills what the code minted.
	_, err = e.conf.Exchange(e.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	wantGrantError(t, err, "invalid_grant", "")
	if _, ok := e.s.AccessTokenEmail(tok.AccessToken); ok {
		t.Fatal("the access token survived a replayed code")
	}
	_, err = e.conf.TokenSource(e.ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	wantGrantError(t, err, "invalid_grant", "Token has been expired or revoked.")

	st := e.s.Stats()
	if st.Consents != 1 || st.CodeExchanges != 1 || st.FailedGrants != 2 || st.IDTokensMinted != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestExchangeChecks(t *testing.T) {
	e := newEnv(t, Options{})
	q, verifier := e.consent(t, oauth2.AccessTypeOffline)
	code := q.Get("code")

	_, err := e.conf.Exchange(e.ctx, code)
	wantGrantError(t, err, "invalid_grant", "Missing code verifier.")
	_, err = e.conf.Exchange(e.ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
	wantGrantError(t, err, "invalid_grant", "Invalid code verifier.")
	other := *e.conf
	other.RedirectURL = "http://127.0.0.1:1/elsewhere"
	_, err = other.Exchange(e.ctx, code, oauth2.VerifierOption(verifier))
	wantGrantError(t, err, "redirect_uri_mismatch", "")
	other = *e.conf
	other.ClientSecret = "wrong"
	_, err = other.Exchange(e.ctx, code, oauth2.VerifierOption(verifier))
	wantGrantError(t, err, "invalid_client", "Unauthorized")
	_, err = e.conf.Exchange(e.ctx, "4/0unknown", oauth2.VerifierOption(verifier))
	wantGrantError(t, err, "invalid_grant", "Malformed auth code.")

	// Failed attempts do not burn the code; client_secret_basic works too.
	basic := *e.conf
	basic.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
	if _, err := basic.Exchange(e.ctx, code, oauth2.VerifierOption(verifier)); err != nil {
		t.Fatal(err)
	}

	// Codes expire.
	q, verifier = e.consent(t)
	e.clock.Advance(codeTTL)
	_, err = e.conf.Exchange(e.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	wantGrantError(t, err, "invalid_grant", "")

	status, body := e.post(t, TokenPath, url.Values{"client_id": {e.conf.ClientID}, "client_secret": {e.conf.ClientSecret}, "grant_type": {"password"}})
	if status != 400 || body["error"] != "unsupported_grant_type" {
		t.Fatalf("password grant: %d %v", status, body)
	}
}

func TestConsentPageErrors(t *testing.T) {
	e := newEnv(t, Options{RequiredScopes: []string{gmailModify}})
	good := func() url.Values {
		u, _ := url.Parse(e.conf.AuthCodeURL("s", oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		return u.Query()
	}
	for _, c := range []struct {
		name, key, value, want string
	}{
		{"unknown client", "client_id", "someone-else", "Error 401: invalid_client"},
		{"https redirect", "redirect_uri", "https://example.com/cb", "redirect_uri_mismatch"},
		{"localhost name", "redirect_uri", "http://localhost:8080/cb", "redirect_uri_mismatch"},
		{"no port", "redirect_uri", "http://127.0.0.1/cb", "redirect_uri_mismatch"},
		{"implicit flow", "response_type", "token", "invalid_request"},
		{"no scope", "scope", "", "Missing required parameter: scope"},
		{"gmail scope missing", "scope", "openid email", "invalid_scope"},
		{"no PKCE", "code_challenge", "", "code_challenge_method=S256"},
		{"plain PKCE", "code_challenge_method", "plain", "code_challenge_method=S256"},
		{"bad access_type", "access_type", "forever", "Invalid access_type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := good()
			q.Set(c.key, c.value)
			_, err := e.s.Consent(e.ctx, e.ts.URL+AuthPath+"?"+q.Encode())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error page with %q", err, c.want)
			}
		})
	}
	if st := e.s.Stats(); st.Consents != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestDenialAndAccounts(t *testing.T) {
	e := newEnv(t, Options{})
	e.s.SetDeny(true)
	q, _ := e.consent(t, oauth2.AccessTypeOffline)
	if q.Get("error") != "access_denied" || q.Get("state") != "state-123" || q.Has("code") {
		t.Fatalf("denial redirect %v", q)
	}
	e.s.SetDeny(false)

	e.s.SetAccount("second@example.com")
	tok := e.connect(t)
	if email, _ := e.s.AccessTokenEmail(tok.AccessToken); email != "second@example.com" {
		t.Fatalf("SetAccount: consented as %q", email)
	}
	tok = e.connect(t, oauth2.SetAuthURLParam("login_hint", "hinted@example.com"))
	if email, _ := e.s.AccessTokenEmail(tok.AccessToken); email != "hinted@example.com" {
		t.Fatalf("login_hint: consented as %q", email)
	}

	// Granular consent: the user unticks Gmail.
	e.s.SetUncheckedScopes(gmailModify)
	tok = e.connect(t, oauth2.SetAuthURLParam("prompt", "consent"))
	if s, _ := tok.Extra("scope").(string); strings.Contains(s, gmailModify) {
		t.Fatalf("granted scope %q includes the unticked one", s)
	}
	if st := e.s.Stats(); st.Denials != 1 || st.Consents != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRefreshTokenIssuance(t *testing.T) {
	e := newEnv(t, Options{})
	if e.connect(t).RefreshToken == "" {
		t.Fatal("no refresh token on first offline consent")
	}
	if rt := e.connect(t).RefreshToken; rt != "" {
		t.Fatal("a refresh token on a repeated consent without prompt=consent")
	}
	if e.connect(t, oauth2.SetAuthURLParam("prompt", "consent")).RefreshToken == "" {
		t.Fatal("no refresh token with prompt=consent")
	}
	q, verifier := e.consent(t, oauth2.SetAuthURLParam("prompt", "consent"))
	tok, err := e.conf.Exchange(e.ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil || tok.RefreshToken != "" {
		t.Fatalf("online access: %+v, %v", tok, err)
	}
	e.s.SetOmitRefreshToken(true)
	if e.connect(t, oauth2.SetAuthURLParam("prompt", "consent")).RefreshToken != "" {
		t.Fatal("SetOmitRefreshToken did not omit it")
	}
}

func TestRefreshAfterExpiry(t *testing.T) {
	e := newEnv(t, Options{AccessTTL: 30 * time.Minute})
	tok := e.connect(t)
	if tok.ExpiresIn != 1800 {
		t.Fatalf("expires_in %d", tok.ExpiresIn)
	}
	e.clock.Advance(30 * time.Minute)
	if _, ok := e.s.AccessTokenEmail(tok.AccessToken); ok {
		t.Fatal("an expired access token is accepted")
	}
	status, body := e.post(t, TokenPath, url.Values{
		"client_id": {e.conf.ClientID}, "client_secret": {e.conf.ClientSecret},
		"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
	})
	if status != 200 || body["access_token"] == "" || body["id_token"] == nil || body["token_type"] != "Bearer" {
		t.Fatalf("refresh: %d %v", status, body)
	}
	if _, ok := body["refresh_token"]; ok {
		t.Fatal("a refresh grant answered a new refresh token")
	}
	if email, ok := e.s.AccessTokenEmail(body["access_token"].(string)); !ok || email != DefaultAccount {
		t.Fatal("the refreshed access token is not accepted")
	}
	if st := e.s.Stats(); st.RefreshGrants != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRevocation(t *testing.T) {
	e := newEnv(t, Options{})
	tok := e.connect(t)
	form := func(tok string) url.Values { return url.Values{"token": {tok}} }
	if status, _ := e.post(t, RevokePath, form(tok.RefreshToken)); status != 200 {
		t.Fatalf("revoke: %d", status)
	}
	if !e.s.Revoked(tok.RefreshToken) || !e.s.Revoked(tok.AccessToken) {
		t.Fatal("Revoked does not report it")
	}
	if _, ok := e.s.AccessTokenEmail(tok.AccessToken); ok {
		t.Fatal("the access token survived revoking its refresh token")
	}
	_, err := e.conf.TokenSource(e.ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	wantGrantError(t, err, "invalid_grant", "Token has been expired or revoked.")
	for _, tk := range []string{tok.RefreshToken, "1//never-issued"} {
		if status, body := e.post(t, RevokePath, form(tk)); status != 400 || body["error"] != "invalid_token" {
			t.Fatalf("revoke %q again: %d %v", tk, status, body)
		}
	}

	// Revoking an access token takes its refresh token along; so does
	// the user removing the app from their account.
	tok = e.connect(t, oauth2.SetAuthURLParam("prompt", "consent"))
	if status, _ := e.post(t, RevokePath, form(tok.AccessToken)); status != 200 || !e.s.Revoked(tok.RefreshToken) {
		t.Fatal("revoking the access token left the refresh token alive")
	}
	tok = e.connect(t, oauth2.SetAuthURLParam("prompt", "consent"))
	if !e.s.Revoke(tok.RefreshToken) || e.s.Revoke("unknown") {
		t.Fatal("Revoke")
	}
	if _, ok := e.s.AccessTokenEmail(tok.AccessToken); ok {
		t.Fatal("Revoke left the access token alive")
	}
	if st := e.s.Stats(); st.Revocations != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestMintIDToken(t *testing.T) {
	e := newEnv(t, Options{})
	const aud = "https://scouts.example.com/push/gmail"
	keys := oidc.NewRemoteKeySet(e.ctx, e.ts.URL+CertsPath)
	verify := func(raw, audience string) (*oidc.IDToken, error) {
		return oidc.NewVerifier(GoogleIssuer, keys, &oidc.Config{ClientID: audience, Now: e.clock.Now}).Verify(e.ctx, raw)
	}
	push := IDClaims{Audience: aud, Email: "gmail-api-push@system.gserviceaccount.com", EmailVerified: true}
	idt, err := verify(e.s.MintIDToken(push), aud)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Email    string `json:"email"`
		Verified bool   `json:"email_verified"`
	}
	if err := idt.Claims(&c); err != nil || c.Email != push.Email || !c.Verified || !idt.Expiry.Equal(e.clock.Now().Add(time.Hour)) {
		t.Fatalf("claims %+v %v, expiry %v", c, err, idt.Expiry)
	}

	forged := push
	forged.ForeignKey = true
	if _, err := verify(e.s.MintIDToken(forged), aud); err == nil {
		t.Fatal("a token signed with a foreign key verified")
	}
	expired := push
	expired.IssuedAt = e.clock.Now().Add(-2 * time.Hour)
	if _, err := verify(e.s.MintIDToken(expired), aud); err == nil {
		t.Fatal("an expired token verified")
	}
	if _, err := verify(e.s.MintIDToken(push), "https://other.example.com/push"); err == nil {
		t.Fatal("a token for another audience verified")
	}
	other := push
	other.Issuer = "https://evil.example.com"
	if _, err := verify(e.s.MintIDToken(other), aud); err == nil {
		t.Fatal("a token from another issuer verified")
	}
}

func TestDiscovery(t *testing.T) {
	e := newEnv(t, Options{})
	// The document names Google's issuer while being served from the
	// test server, as a redirected key fetch would see it.
	p, err := oidc.NewProvider(oidc.InsecureIssuerURLContext(e.ctx, GoogleIssuer), e.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if ep := p.Endpoint(); ep.AuthURL != e.conf.Endpoint.AuthURL || ep.TokenURL != e.conf.Endpoint.TokenURL {
		t.Fatalf("endpoints %+v", ep)
	}
	tok := e.connect(t)
	raw, _ := tok.Extra("id_token").(string)
	if _, err := p.Verifier(&oidc.Config{ClientID: e.conf.ClientID, Now: e.clock.Now}).Verify(e.ctx, raw); err != nil {
		t.Fatal(err)
	}
}

// Access tokens ended early answer as dead while the refresh token still
// mints new ones.
func TestExpireAccessTokens(t *testing.T) {
	e := newEnv(t, Options{})
	tok := e.connect(t)
	if n := e.s.ExpireAccessTokens(DefaultAccount); n != 1 {
		t.Fatalf("ended %d access tokens, want 1", n)
	}
	if _, ok := e.s.AccessTokenEmail(tok.AccessToken); ok {
		t.Fatal("the access token is still live")
	}
	fresh, err := e.conf.TokenSource(e.ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh after the early end: %v", err)
	}
	if email, ok := e.s.AccessTokenEmail(fresh.AccessToken); !ok || email != DefaultAccount {
		t.Fatalf("the refreshed token: %q %v", email, ok)
	}
}
