package oauthfake

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// codeTTL is how long an authorization code can be exchanged (Google:
// minutes).
const codeTTL = 10 * time.Minute

// grantedName is the name Google grants a scope under: it rewrites the
// OpenID shorthands.
func grantedName(scope string) string {
	switch scope {
	case "email":
		return "https://www.googleapis.com/auth/userinfo.email"
	case "profile":
		return "https://www.googleapis.com/auth/userinfo.profile"
	}
	return scope
}

// authorize is the consent page. Google shows an error page (no redirect)
// for a bad client, redirect URI or request, and redirects to the client
// only with a code or the user's refusal.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	if q.Get("client_id") != s.o.ClientID {
		errorPage(w, http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
		return
	}
	redirect := q.Get("redirect_uri")
	if !isLoopback(redirect) {
		errorPage(w, http.StatusBadRequest, "redirect_uri_mismatch",
			"You can't sign in to this app because it doesn't comply with Google's OAuth 2.0 policy: a desktop client must redirect to http://127.0.0.1:PORT/… (got "+redirect+").")
		return
	}
	if rt := q.Get("response_type"); rt != "code" {
		errorPage(w, http.StatusBadRequest, "invalid_request", "Invalid response_type: "+rt)
		return
	}
	scopes := strings.Fields(q.Get("scope"))
	if len(scopes) == 0 {
		errorPage(w, http.StatusBadRequest, "invalid_request", "Missing required parameter: scope")
		return
	}
	for _, want := range s.o.RequiredScopes {
		if !slices.Contains(scopes, want) {
			errorPage(w, http.StatusBadRequest, "invalid_scope", "The request does not ask for "+want)
			return
		}
	}
	if q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		errorPage(w, http.StatusBadRequest, "invalid_request", "PKCE with code_challenge_method=S256 is required (got code_challenge_method="+q.Get("code_challenge_method")+")")
		return
	}
	accessType := q.Get("access_type")
	if accessType != "" && accessType != "online" && accessType != "offline" {
		errorPage(w, http.StatusBadRequest, "invalid_request", "Invalid access_type: "+accessType)
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	back := url.Values{}
	if st := q.Get("state"); st != "" {
		back.Set("state", st)
	}
	if s.deny {
		s.stats.Denials++
		back.Set("error", "access_denied")
		redirectTo(w, r, redirect, back)
		return
	}
	account := s.account
	if hint := q.Get("login_hint"); strings.Contains(hint, "@") {
		account = hint
	}
	var granted []string
	for _, sc := range scopes {
		if slices.Contains(s.unchecked, sc) {
			continue
		}
		sc = grantedName(sc)
		if !slices.Contains(granted, sc) {
			granted = append(granted, sc)
		}
	}
	// Google hands out a refresh token on the first offline consent of
	// an account to a client, and again only when prompt=consent forces
	// the consent screen.
	consentKey := s.o.ClientID + "\x00" + account
	offline := accessType == "offline"
	issueRefresh := offline && !s.omitRefresh &&
		(!s.consented[consentKey] || slices.Contains(strings.Fields(q.Get("prompt")), "consent"))
	if offline {
		s.consented[consentKey] = true
	}
	code := "4/0fake-" + randomString(32)
	s.codes[code] = &authCode{
		clientID: s.o.ClientID, redirectURI: redirect, challenge: q.Get("code_challenge"), account: account,
		nonce: q.Get("nonce"), scopes: granted, issueRefresh: issueRefresh, expires: s.o.Now().Add(codeTTL),
	}
	s.stats.Consents++
	back.Set("code", code)
	back.Set("scope", strings.Join(granted, " "))
	back.Set("authuser", "0")
	back.Set("prompt", "consent")
	redirectTo(w, r, redirect, back)
}

func isLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.User != nil || u.Fragment != "" {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

func redirectTo(w http.ResponseWriter, r *http.Request, redirect string, params url.Values) {
	u, _ := url.Parse(redirect)
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func errorPage(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><title>Error %d (%s)</title><h1>Access blocked: Authorization Error</h1><p>Error %d: %s</p><p>%s</p>",
		status, code, status, code, htmlEscape(msg))
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// tokenResponse is the token endpoint's success body.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
	TokenType    string `json:"token_type"`
	IDToken      string `json:"id_token,omitempty"`
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		s.grantError(w, http.StatusBadRequest, "invalid_request", "Could not parse the request body.")
		return
	}
	id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		// RFC 6749 §2.3.1: Basic credentials are form-encoded first.
		id, _ = url.QueryUnescape(u)
		secret, _ = url.QueryUnescape(p)
	}
	if id != s.o.ClientID {
		s.grantError(w, http.StatusUnauthorized, "invalid_client", "The OAuth client was not found.")
		return
	}
	if subtle.ConstantTimeCompare([]byte(secret), []byte(s.o.ClientSecret)) != 1 {
		s.grantError(w, http.StatusUnauthorized, "invalid_client", "Unauthorized")
		return
	}
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "authorization_code":
		s.exchange(w, r.PostForm)
	case "refresh_token":
		s.refreshGrant(w, r.PostForm)
	case "":
		s.grantError(w, http.StatusBadRequest, "invalid_request", "Missing required parameter: grant_type")
	default:
		s.grantError(w, http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+gt)
	}
}

func (s *Server) exchange(w http.ResponseWriter, form url.Values) {
	code := form.Get("code")
	if code == "" {
		s.grantError(w, http.StatusBadRequest, "invalid_request", "Missing required parameter: code")
		return
	}
	s.mu.Lock()
	c := s.codes[code]
	switch {
	case c == nil:
		s.mu.Unlock()
		s.grantError(w, http.StatusBadRequest, "invalid_grant", "Malformed auth code.")
		return
	case c.used:
		// A replayed code is a stolen code: what it minted dies too
		// (RFC 6749 §4.1.2).
		if c.minted != nil {
			c.minted.revoked = true
		}
		s.mu.Unlock()
		s.grantError(w, http.StatusBadRequest, "invalid_grant", "Bad Request")
		return
	case !s.o.Now().Before(c.expires):
		s.mu.Unlock()
		s.grantError(w, http.StatusBadRequest, "invalid_grant", "Bad Request")
		return
	case form.Get("redirect_uri") != c.redirectURI:
		s.mu.Unlock()
		s.grantError(w, http.StatusBadRequest, "redirect_uri_mismatch", "Bad Request")
		return
	}
	verifier := form.Get("code_verifier")
	if verifier == "" {
		s.mu.Unlock()
		s.grantError(w, http.StatusBadRequest, "invalid_grant", "Missing code verifier.")
		return
	}
	sum := sha256.Sum256([]byte(verifier))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
		s.mu.Unlock()
		s.grantError(w, http.StatusBadRequest, "invalid_grant", "Invalid code verifier.")
		return
	}
	c.used = true
	g := &grant{clientID: c.clientID, account: c.account, scopes: c.scopes}
	c.minted = g
	if c.issueRefresh {
		g.refresh = "1//fake-" + randomString(48)
		s.refresh[g.refresh] = g
	}
	resp := s.tokenResponseLocked(g, c.nonce)
	resp.RefreshToken = g.refresh
	s.stats.CodeExchanges++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) refreshGrant(w http.ResponseWriter, form url.Values) {
	rt := form.Get("refresh_token")
	if rt == "" {
		s.grantError(w, http.StatusBadRequest, "invalid_request", "Missing required parameter: refresh_token")
		return
	}
	s.mu.Lock()
	g := s.refresh[rt]
	if g == nil || g.revoked {
		s.mu.Unlock()
		s.grantError(w, http.StatusBadRequest, "invalid_grant", "Token has been expired or revoked.")
		return
	}
	resp := s.tokenResponseLocked(g, "")
	s.stats.RefreshGrants++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

// tokenResponseLocked mints an access token (and an ID token when openid
// was granted); s.mu is held.
func (s *Server) tokenResponseLocked(g *grant, nonce string) tokenResponse {
	tok, ttl := s.mintAccess(g)
	resp := tokenResponse{AccessToken: tok, ExpiresIn: int64(ttl / time.Second), Scope: strings.Join(g.scopes, " "), TokenType: "Bearer"}
	if slices.Contains(g.scopes, "openid") {
		now := s.o.Now()
		resp.IDToken = s.signLocked(IDClaims{
			Audience: g.clientID, AuthorizedParty: g.clientID, Email: g.account, EmailVerified: true,
			IssuedAt: now, Expiry: now.Add(time.Hour), Nonce: nonce,
		})
	}
	return resp
}

func (s *Server) grantError(w http.ResponseWriter, status int, code, desc string) {
	s.mu.Lock()
	s.stats.FailedGrants++
	s.mu.Unlock()
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// revoke takes a refresh or access token; either kills the whole grant.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "Bad Request"})
		return
	}
	tok := r.Form.Get("token")
	s.mu.Lock()
	g := s.grantOf(tok)
	if g == nil || g.revoked {
		s.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_token", "error_description": "Token expired or revoked"})
		return
	}
	g.revoked = true
	s.stats.Revocations++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, "{}")
}

// Visit is what the browser saw at the end of a consent: the loopback
// redirect and the application's answer to it.
type Visit struct {
	RedirectedTo string
	Status       int
	Body         string
}

// Consent plays the user's browser: it opens authURL (this fake's consent
// page), does not follow the redirect itself but checks it is one, then
// opens the redirect URL (the application's loopback listener) and returns
// what that answered. An error page from the fake is an error.
func (s *Server) Consent(ctx context.Context, authURL string) (Visit, error) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) (*http.Response, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, "", err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, string(b), err
	}
	resp, body, err := get(authURL)
	if err != nil {
		return Visit{}, fmt.Errorf("oauthfake: open the consent page: %w", err)
	}
	if resp.StatusCode != http.StatusFound {
		return Visit{}, fmt.Errorf("oauthfake: the consent page answered %s: %s", resp.Status, body)
	}
	loc := resp.Header.Get("Location")
	resp, body, err = get(loc)
	if err != nil {
		return Visit{RedirectedTo: loc}, fmt.Errorf("oauthfake: follow the redirect to %s: %w", loc, err)
	}
	return Visit{RedirectedTo: loc, Status: resp.StatusCode, Body: body}, nil
}
