package gmailauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/secrets"
)

const you = "you@example.com"

// TestLifecycle connects, refreshes, disconnects and reconnects an
// account, with the token in each real keyring.
func TestLifecycle(t *testing.T) {
	for _, kr := range keyrings {
		t.Run(kr.name, func(t *testing.T) {
			store, _ := kr.open(t)
			e := newEnv(t, store, nil)

			res, v, authURL := e.connect(t)
			if res.Err != nil || v.err != nil {
				t.Fatalf("connect: %v; browser: %v", res.Err, v.err)
			}
			if res.Account.Email != you || !res.Account.ConnectedAt.Equal(e.clock.Now()) || !slices.Contains(res.Account.Scopes, ScopeGmail) {
				t.Fatalf("account %+v", res.Account)
			}
			if v.v.Status != http.StatusOK || !strings.Contains(v.v.Body, "Scouts is connected to "+you) {
				t.Fatalf("the browser saw %d %q", v.v.Status, v.v.Body)
			}
			u, _ := url.Parse(authURL)
			q := u.Query()
			if q.Get("prompt") != "consent" || q.Get("access_type") != "offline" || q.Get("code_challenge_method") != "S256" ||
				!strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") || !strings.HasSuffix(q.Get("redirect_uri"), callbackPath) {
				t.Fatalf("auth URL %s", authURL)
			}
			// The one-shot listener is gone.
			if resp, err := http.Get(v.v.RedirectedTo); err == nil {
				resp.Body.Close()
				t.Fatal("the callback listener still answers after the flow ended")
			}

			rec := e.stored(t, you)
			rt := storedToken(rec, "refresh_token")
			access := storedToken(rec, "access_token")
			if rec["email"] != you || rt == "" || access == "" || rec["connected_at"] == nil || rec["scopes"] == nil {
				t.Fatalf("stored %v", rec)
			}
			accts, err := e.m.Accounts()
			if err != nil || len(accts) != 1 || accts[0].Email != you || !accts[0].ConnectedAt.Equal(e.clock.Now()) {
				t.Fatalf("Accounts: %+v, %v", accts, err)
			}
			if got, err := e.m.RefreshToken(you); err != nil || got != rt {
				t.Fatalf("RefreshToken: %q, %v", got, err)
			}

			// A live access token is used as is.
			src, err := e.m.TokenSource(e.ctx, you)
			if err != nil {
				t.Fatal(err)
			}
			tok, err := src.Token()
			if err != nil || tok.AccessToken != access {
				t.Fatalf("Token: %v, %v", tok, err)
			}
			if _, ok := e.fake.AccessTokenEmail(tok.AccessToken); !ok || e.fake.Stats().RefreshGrants != 0 {
				t.Fatal("the stored access token is not live, or was refreshed needlessly")
			}

			// Past its lifetime, it is refreshed and the new one saved.
			e.clock.Advance(time.Hour)
			if _, ok := e.fake.AccessTokenEmail(access); ok {
				t.Fatal("the fake still accepts the expired access token")
			}
			tok, err = src.Token()
			if err != nil {
				t.Fatal(err)
			}
			if email, ok := e.fake.AccessTokenEmail(tok.AccessToken); !ok || email != you || tok.AccessToken == access {
				t.Fatal("the refreshed access token is not live")
			}
			if n := e.fake.Stats().RefreshGrants; n != 1 {
				t.Fatalf("%d refresh grants, want 1", n)
			}
			rec = e.stored(t, you)
			if storedToken(rec, "access_token") != tok.AccessToken || storedToken(rec, "refresh_token") != rt {
				t.Fatalf("the keyring holds %v, not the refreshed token", rec)
			}
			// The cache and, after a restart, the keyring spare a refresh.
			if again, _ := src.Token(); again.AccessToken != tok.AccessToken {
				t.Fatal("a second Token refreshed again")
			}
			src2, err := e.m.TokenSource(e.ctx, you)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := src2.Token(); again.AccessToken != tok.AccessToken || e.fake.Stats().RefreshGrants != 1 {
				t.Fatal("a new TokenSource did not reuse the saved token")
			}

			// Disconnect revokes at Google and forgets the account.
			if err := e.m.Disconnect(e.ctx, you); err != nil {
				t.Fatal(err)
			}
			if !e.fake.Revoked(rt) || e.fake.Stats().Revocations != 1 {
				t.Fatal("Disconnect did not revoke the refresh token")
			}
			if _, err := e.store.Get(keyPrefix + you); !errors.Is(err, secrets.ErrNotFound) {
				t.Fatalf("the keyring entry survived Disconnect: %v", err)
			}
			if accts, err := e.m.Accounts(); err != nil || len(accts) != 0 {
				t.Fatalf("Accounts after Disconnect: %+v, %v", accts, err)
			}
			if _, err := e.m.TokenSource(e.ctx, you); !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), you) {
				t.Fatalf("TokenSource after Disconnect: %v", err)
			}
			if _, err := e.m.RefreshToken(you); !errors.Is(err, ErrNotConnected) {
				t.Fatalf("RefreshToken after Disconnect: %v", err)
			}

			// Reconnect, then the user revokes Scouts at Google: the
			// next refresh asks to reconnect.
			if res, _, _ := e.connect(t); res.Err != nil {
				t.Fatal(res.Err)
			}
			rt = storedToken(e.stored(t, you), "refresh_token")
			src, err = e.m.TokenSource(e.ctx, you)
			if err != nil {
				t.Fatal(err)
			}
			e.fake.Revoke(rt)
			e.clock.Advance(time.Hour)
			tok, err = src.Token()
			var ae *AuthExpiredError
			if tok != nil || !errors.Is(err, ErrReconnect) || !errors.As(err, &ae) || ae.Email != you ||
				!strings.Contains(err.Error(), "Gmail access for "+you+" expired or was revoked — reconnect") {
				t.Fatalf("Token after revocation at Google: %v, %v", tok, err)
			}
			// Revocation fails now (already revoked): the entry still goes.
			if err := e.m.Disconnect(e.ctx, you); err != nil {
				t.Fatal(err)
			}
			if _, err := e.store.Get(keyPrefix + you); !errors.Is(err, secrets.ErrNotFound) {
				t.Fatalf("the keyring entry survived Disconnect: %v", err)
			}
		})
	}
}

func TestConnectFailures(t *testing.T) {
	for _, c := range []struct {
		name    string
		arrange func(e *env)
		want    error
		page    string
	}{
		{"denied", func(e *env) { e.fake.SetDeny(true) }, ErrDeclined, "you declined access in the browser"},
		{"no refresh token", func(e *env) { e.fake.SetOmitRefreshToken(true) }, ErrNoRefreshToken, "no refresh token"},
		{"gmail unticked", func(e *env) { e.fake.SetUncheckedScopes(ScopeGmail) }, ErrScopeDenied, "tick it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, openFileStore(t), nil)
			c.arrange(e)
			res, v, _ := e.connect(t)
			if !errors.Is(res.Err, c.want) || res.Account.Email != "" {
				t.Fatalf("result %+v, want %v", res, c.want)
			}
			if v.err != nil || v.v.Status != http.StatusBadRequest || !strings.Contains(v.v.Body, c.page) {
				t.Fatalf("the browser saw %d %q (%v)", v.v.Status, v.v.Body, v.err)
			}
			if keys, _ := e.store.Keys(); len(keys) != 0 {
				t.Fatalf("something was stored: %q", keys)
			}
		})
	}
}

func TestWrongState(t *testing.T) {
	var e *env
	e = newEnv(t, openFileStore(t), func(c *Config) {
		c.OpenBrowser = func(raw string) error {
			u, _ := url.Parse(raw)
			q := u.Query()
			q.Set("state", "forged-by-another-page")
			u.RawQuery = q.Encode()
			go func() {
				v, err := e.fake.Consent(context.Background(), u.String())
				e.visits <- visit{v, err}
			}()
			return nil
		}
	})
	res, v, _ := e.connect(t)
	if !errors.Is(res.Err, ErrStateMismatch) {
		t.Fatalf("result %+v", res)
	}
	if v.v.Status != http.StatusBadRequest || !strings.Contains(v.v.Body, "state mismatch") {
		t.Fatalf("the browser saw %d %q", v.v.Status, v.v.Body)
	}
	if st := e.fake.Stats(); st.CodeExchanges != 0 {
		t.Fatal("a code with a forged state was exchanged")
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	nobody := func(c *Config) {
		c.OpenBrowser = func(string) error { return errors.New("no browser here") }
		c.ConsentTimeout = 50 * time.Millisecond
	}
	e := newEnv(t, openFileStore(t), nobody)
	authURL, done, err := e.m.Start(e.ctx)
	if err != nil || authURL == "" {
		t.Fatalf("Start must return the URL even without a browser: %q, %v", authURL, err)
	}
	if res := waitResult(t, done); !errors.Is(res.Err, ErrConsentTimeout) {
		t.Fatalf("result %+v", res)
	}
	// The browser shows up too late.
	if _, err := e.fake.Consent(e.ctx, authURL); err == nil {
		t.Fatal("the listener still answered after the timeout")
	}

	e = newEnv(t, openFileStore(t), func(c *Config) { c.OpenBrowser = func(string) error { return nil } })
	ctx, cancel := context.WithCancel(context.Background())
	_, done, err = e.m.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if res := waitResult(t, done); !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("result %+v", res)
	}
}

// The UI can open the link itself when no browser opens.
func TestManualBrowser(t *testing.T) {
	e := newEnv(t, openFileStore(t), func(c *Config) { c.OpenBrowser = func(string) error { return errors.New("xdg-open: not found") } })
	authURL, done, err := e.m.Start(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.fake.Consent(e.ctx, authURL)
	if err != nil || !strings.Contains(v.Body, "Scouts is connected to "+you) {
		t.Fatalf("%v %q", err, v.Body)
	}
	if res := waitResult(t, done); res.Err != nil || res.Account.Email != you {
		t.Fatalf("result %+v", res)
	}
}

// A locked keyring fails loudly and never yields an empty token.
func TestLockedKeyring(t *testing.T) {
	store, kr := keyrings[0].open(t)
	e := newEnv(t, store, nil)
	if res, _, _ := e.connect(t); res.Err != nil {
		t.Fatal(res.Err)
	}
	kr.Lock(t)

	src, err := e.m.TokenSource(e.ctx, you)
	wantLocked(t, "TokenSource", err)
	if src != nil {
		t.Fatal("TokenSource returned a source from a locked keyring")
	}
	_, err = e.m.Accounts()
	wantLocked(t, "Accounts", err)
	rt, err := e.m.RefreshToken(you)
	wantLocked(t, "RefreshToken", err)
	if rt != "" {
		t.Fatal("RefreshToken returned a token from a locked keyring")
	}
	wantLocked(t, "Disconnect", e.m.Disconnect(e.ctx, you))

	e.fake.SetAccount("second@example.com")
	res, v, _ := e.connect(t)
	wantLocked(t, "connect", res.Err)
	if v.v.Status != http.StatusBadRequest || !strings.Contains(v.v.Body, "gnome-keyring-daemon --unlock") {
		t.Fatalf("the browser saw %d %q", v.v.Status, v.v.Body)
	}
}

func wantLocked(t *testing.T, op string, err error) {
	t.Helper()
	if !errors.Is(err, secrets.ErrLocked) || !strings.Contains(err.Error(), "--keyring file") {
		t.Fatalf("%s on a locked keyring: %v", op, err)
	}
}

func TestEmailFromIDToken(t *testing.T) {
	const hdr = "eyJhbGciOiJSUzI1NiJ9"
	enc := func(json string) string {
		return hdr + "." + strings.TrimRight(b64(json), "=") + ".sig"
	}
	if got, err := emailFromIDToken(enc(`{"aud":["x","cid"],"email":"a@b.c"}`), "cid"); err != nil || got != "a@b.c" {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range []string{"", "a.b", enc(`{"aud":"other","email":"a@b.c"}`), enc(`{"aud":"cid"}`), hdr + ".!!!.sig"} {
		if _, err := emailFromIDToken(bad, "cid"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Google unreachable: Disconnect still forgets the account.
func TestDisconnectWhenRevokeFails(t *testing.T) {
	e := newEnv(t, openFileStore(t), nil)
	if res, _, _ := e.connect(t); res.Err != nil {
		t.Fatal(res.Err)
	}
	broken := *e.m
	broken.cfg.RevokeURL = e.ts.URL + "/no-such-endpoint"
	if err := broken.Disconnect(e.ctx, you); err != nil {
		t.Fatal(err)
	}
	if e.fake.Stats().Revocations != 0 {
		t.Fatal("revoked after all")
	}
	if _, err := e.store.Get(keyPrefix + you); !errors.Is(err, secrets.ErrNotFound) {
		t.Fatalf("the keyring entry survived Disconnect: %v", err)
	}
	if err := e.m.Disconnect(e.ctx, you); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("second Disconnect: %v", err)
	}
}
