package gmailauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/secrets"
	"github.com/scouts-hq/scouts/app/secrets/secretstest"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
)

// keyrings are the real keyrings the flow is tested against.
var keyrings = []struct {
	name string
	open func(t *testing.T) (*secrets.Store, *secretstest.Keyring)
}{
	{"secret-service", func(t *testing.T) (*secrets.Store, *secretstest.Keyring) {
		kr := secretstest.Start(t)
		s, err := secrets.Open(secrets.Options{Backend: secrets.BackendSecretService, BusAddress: kr.Addr})
		if err != nil {
			t.Fatal(err)
		}
		return s, kr
	}},
	{"file", func(t *testing.T) (*secrets.Store, *secretstest.Keyring) {
		s, err := secrets.Open(secrets.Options{Backend: secrets.BackendFile, FileDir: t.TempDir(),
			Passphrase: func() (string, error) { return "a long random test passphrase", nil }})
		if err != nil {
			t.Fatal(err)
		}
		return s, nil
	}},
}

func openFileStore(t *testing.T) *secrets.Store {
	s, _ := keyrings[1].open(t)
	return s
}

type visit struct {
	v   oauthfake.Visit
	err error
}

type env struct {
	fake   *oauthfake.Server
	ts     *httptest.Server
	clock  *oauthfake.Clock
	store  *secrets.Store
	m      *Manager
	cfg    Config
	visits chan visit
	ctx    context.Context
}

// newEnv wires a Manager to the fake; its "browser" is the fake's
// Consent, run in the background as a real browser would be. tweak may
// change the Config before the Manager is made.
func newEnv(t *testing.T, store *secrets.Store, tweak func(*Config)) *env {
	t.Helper()
	clock := oauthfake.NewClock(time.Date(2026, 3, 2, 8, 30, 0, 0, time.UTC))
	fake := oauthfake.New(oauthfake.Options{Now: clock.Now, RequiredScopes: []string{ScopeGmail, "openid", "email"}})
	ts := httptest.NewServer(fake)
	t.Cleanup(ts.Close)
	ep := oauthfake.EndpointsAt(ts.URL)
	e := &env{fake: fake, ts: ts, clock: clock, store: store, visits: make(chan visit, 4), ctx: context.Background()}
	e.cfg = Config{
		ClientID: oauthfake.DefaultClientID, ClientSecret: oauthfake.DefaultClientSecret,
		AuthURL: ep.Auth, TokenURL: ep.Token, RevokeURL: ep.Revoke,
		Now: clock.Now,
		OpenBrowser: func(u string) error {
			go func() {
				v, err := fake.Consent(context.Background(), u)
				e.visits <- visit{v, err}
			}()
			return nil
		},
	}
	if tweak != nil {
		tweak(&e.cfg)
	}
	e.m = New(e.cfg, store, slog.New(slog.NewTextHandler(t.Output(), nil)))
	return e
}

// connect runs Start to its end and returns the outcome and what the
// browser saw.
func (e *env) connect(t *testing.T) (Result, visit, string) {
	t.Helper()
	authURL, done, err := e.m.Start(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := waitResult(t, done)
	var v visit
	select {
	case v = <-e.visits:
	case <-time.After(30 * time.Second):
		t.Fatal("the browser did not finish")
	}
	return res, v, authURL
}

func waitResult(t *testing.T, done <-chan Result) Result {
	t.Helper()
	select {
	case res, ok := <-done:
		if !ok {
			t.Fatal("done closed without a result")
		}
		if _, open := <-done; open {
			t.Fatal("done delivered two results")
		}
		return res
	case <-time.After(30 * time.Second):
		t.Fatal("Start did not finish within 30 s")
	}
	return Result{}
}

// stored reads the keyring entry of email as the Manager wrote it.
func (e *env) stored(t *testing.T, email string) map[string]any {
	t.Helper()
	b, err := e.store.Get(keyPrefix + email)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func storedToken(m map[string]any, field string) string {
	tok, _ := m["token"].(map[string]any)
	s, _ := tok[field].(string)
	return s
}

func b64(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }
