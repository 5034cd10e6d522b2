package gmailauth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

const callbackPath = "/oauth2/callback"

// Start begins connecting an account: it listens on a random port of
// 127.0.0.1, opens the browser on Google's consent page and returns that
// page's URL at once (for the UI to show, should no browser open). The
// outcome arrives on done, exactly once, after which the listener is
// closed: on the browser's return, after ConsentTimeout, or when ctx ends.
func (m *Manager) Start(ctx context.Context) (authURL string, done <-chan Result, err error) {
	if m.cfg.ClientID == "" {
		return "", nil, errors.New("gmailauth: no OAuth client ID configured")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("gmailauth: listen for the browser's return: %w", err)
	}
	b := make([]byte, 24)
	rand.Read(b)
	f := &flow{
		m:        m,
		conf:     m.oauthConfig("http://" + ln.Addr().String() + callbackPath),
		state:    base64.RawURLEncoding.EncodeToString(b),
		verifier: oauth2.GenerateVerifier(),
		result:   make(chan Result, 1),
	}
	authURL = f.conf.AuthCodeURL(f.state,
		oauth2.AccessTypeOffline,
		oauth2.S256ChallengeOption(f.verifier),
		// Without prompt=consent, Google sends a refresh token only the
		// first time an account consents; a reconnect would get none.
		oauth2.SetAuthURLParam("prompt", "consent"))

	fctx, cancel := context.WithTimeoutCause(ctx, m.cfg.ConsentTimeout, ErrConsentTimeout)
	f.ctx = fctx
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	out := make(chan Result, 1)
	go func() {
		defer cancel()
		var res Result
		select {
		case res = <-f.result:
		case <-fctx.Done():
			if !f.finish() {
				// The browser came back just in time; its exchange
				// runs on fctx, so it ends promptly either way.
				res = <-f.result
				break
			}
			// From here a late browser is told the sign-in is over.
			cause := context.Cause(fctx)
			if errors.Is(cause, ErrConsentTimeout) {
				res.Err = ErrConsentTimeout
			} else {
				res.Err = fmt.Errorf("gmailauth: connecting was cancelled: %w", cause)
			}
		}
		// Shutdown lets the callback's answer reach the browser first.
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		srv.Shutdown(sctx)
		scancel()
		if res.Err != nil {
			m.log.Warn("gmailauth: connecting failed", "err", res.Err)
		} else {
			m.log.Info("gmailauth: connected", "email", res.Account.Email)
		}
		out <- res
		close(out)
	}()

	if err := m.cfg.OpenBrowser(authURL); err != nil {
		m.log.Warn("gmailauth: could not open the browser; the UI shows the link instead", "err", err)
	}
	return authURL, out, nil
}

// flow is one Start: the callback handler and its secrets.
type flow struct {
	m        *Manager
	ctx      context.Context
	conf     *oauth2.Config
	state    string
	verifier string
	result   chan Result

	mu       sync.Mutex
	finished bool
}

// finish claims the flow's one outcome; it reports false if it was
// already claimed.
func (f *flow) finish() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return false
	}
	f.finished = true
	return true
}

func (f *flow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Connection", "close")
	w.Header().Set("Cache-Control", "no-store")
	if !f.finish() {
		page(w, http.StatusConflict, pageData{Error: "This sign-in has already finished. If Scouts is not connected, start again from Scouts."})
		return
	}
	acct, err := f.complete(r)
	if err != nil {
		page(w, http.StatusBadRequest, pageData{Error: strings.TrimPrefix(err.Error(), "gmailauth: ")})
	} else {
		page(w, http.StatusOK, pageData{Email: acct.Email})
	}
	f.result <- Result{Account: acct, Err: err}
}

func (f *flow) complete(r *http.Request) (Account, error) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.state)) != 1 {
		return Account{}, ErrStateMismatch
	}
	if e := q.Get("error"); e != "" {
		if e == "access_denied" {
			return Account{}, ErrDeclined
		}
		return Account{}, fmt.Errorf("gmailauth: Google refused: %s %s", e, q.Get("error_description"))
	}
	code := q.Get("code")
	if code == "" {
		return Account{}, errors.New("gmailauth: the browser came back without an authorization code")
	}
	tok, err := f.conf.Exchange(f.ctx, code, oauth2.VerifierOption(f.verifier))
	if err != nil {
		return Account{}, fmt.Errorf("gmailauth: exchange code: %w", err)
	}
	return f.m.saveNew(tok)
}

// saveNew checks a fresh token and stores it.
func (m *Manager) saveNew(tok *oauth2.Token) (Account, error) {
	raw, _ := tok.Extra("id_token").(string)
	email, err := emailFromIDToken(raw, m.cfg.ClientID)
	if err != nil {
		return Account{}, err
	}
	if tok.RefreshToken == "" {
		return Account{}, fmt.Errorf("%w (account %s)", ErrNoRefreshToken, email)
	}
	granted := m.cfg.Scopes
	if s, ok := tok.Extra("scope").(string); ok {
		granted = strings.Fields(s)
		for _, want := range m.cfg.Scopes {
			// Google grants the OpenID scopes under other names
			// (email → …/userinfo.email); only the API scopes matter.
			if want != "openid" && want != "email" && want != "profile" && !slices.Contains(granted, want) {
				return Account{}, fmt.Errorf("%w (account %s, missing %s)", ErrScopeDenied, email, want)
			}
		}
	}
	m.setExpiry(tok)
	rec := &record{Email: email, Scopes: granted, ConnectedAt: m.cfg.Now().UTC(), Token: tok}
	if err := m.save(rec); err != nil {
		return Account{}, err
	}
	return Account{Email: email, ConnectedAt: rec.ConnectedAt, Scopes: granted}, nil
}

// emailFromIDToken reads the account's address from the ID token without
// checking its signature: the token came straight from the token endpoint
// over TLS, which OpenID Connect Core 1.0 §3.1.3.7 (6) accepts in place of
// the signature. The audience is still checked, cheaply, to catch a
// token endpoint that is not the one the client ID belongs to.
func emailFromIDToken(raw, clientID string) (string, error) {
	if raw == "" {
		return "", errors.New("gmailauth: Google sent no ID token; the openid and email scopes are needed to know which account consented")
	}
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return "", errors.New("gmailauth: the ID token is not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return "", fmt.Errorf("gmailauth: decode the ID token: %w", err)
	}
	var c struct {
		Email string          `json:"email"`
		Aud   json.RawMessage `json:"aud"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return "", fmt.Errorf("gmailauth: decode the ID token: %w", err)
	}
	var auds []string
	var one string
	if json.Unmarshal(c.Aud, &one) == nil {
		auds = []string{one}
	} else if err := json.Unmarshal(c.Aud, &auds); err != nil {
		return "", fmt.Errorf("gmailauth: the ID token's audience is malformed: %w", err)
	}
	if !slices.Contains(auds, clientID) {
		return "", fmt.Errorf("gmailauth: the ID token is for %q, not for this client", auds)
	}
	if c.Email == "" {
		return "", errors.New("gmailauth: the ID token has no email address; the email scope is needed")
	}
	return c.Email, nil
}

type pageData struct {
	Email string
	Error string
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Scouts</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:5rem auto;padding:0 1rem;color:#222;line-height:1.5}h1{font-size:1.4rem}</style>
</head><body>
{{if .Email}}<h1>Scouts is connected to {{.Email}}</h1><p>You can close this tab.</p>
{{else}}<h1>Scouts could not connect to Gmail</h1><p>{{.Error}}</p><p>You can close this tab and try again from Scouts.</p>
{{end}}</body></html>
`))

func page(w http.ResponseWriter, status int, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	pageTmpl.Execute(w, d)
}

// openBrowser opens url in the user's default browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("gmailauth: open the browser: %w", err)
	}
	go cmd.Wait() // reap it; xdg-open's exit status says nothing useful
	return nil
}
