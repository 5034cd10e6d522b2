//go:build chaos

package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
)

const (
	gmailUser = userEmail
	// keyringPass unlocks the agent's encrypted file keyring, where the
	// Gmail tokens are kept across the agent's restarts.
	keyringPass = "SCOUTS_KEYRING_PASSPHRASE=chaos keyring passphrase"
)

// google is OAuth and the Gmail API, faked in the suite's process on
// loopback. The Gmail fake is wrapped to count the message changes that
// took effect and to let a scenario act between a change and its answer.
type google struct {
	oauth    *oauthfake.Server
	oauthURL string
	gmail    *gmailfake.Server
	gmailURL string
	mods     *modifyWatch
}

func newGoogle(t *testing.T, publish func(ctx context.Context, topic string, data []byte) error) *google {
	t.Helper()
	oauth := oauthfake.New(oauthfake.Options{Account: gmailUser})
	os := httptest.NewServer(oauth)
	t.Cleanup(os.Close)
	gm := gmailfake.New(gmailfake.Options{QuotaPerMinute: -1, Authorize: oauth.AccessTokenEmail, Publish: publish})
	gm.AddMailbox(gmailUser)
	mods := &modifyWatch{next: gm, applied: map[string]int{}}
	gs := httptest.NewServer(mods)
	t.Cleanup(gs.Close)
	return &google{oauth: oauth, oauthURL: os.URL, gmail: gm, gmailURL: gs.URL, mods: mods}
}

// agentFlags points the agent at the fakes, with tokens in the encrypted
// file keyring.
func (g *google) agentFlags(t *testing.T) []string {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "client-secret")
	if err := os.WriteFile(secret, []byte(oauthfake.DefaultClientSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := oauthfake.EndpointsAt(g.oauthURL)
	return []string{"--google-client-id", oauthfake.DefaultClientID, "--google-client-secret-file", secret,
		"--google-auth-url", ep.Auth, "--google-token-url", ep.Token, "--google-revoke-url", ep.Revoke,
		"--gmail-api-url", g.gmailURL, "--keyring", "file", "--open-browser=false", "--poll-interval", "2s"}
}

// connect runs "Connect Gmail" as a person would: the agent hands out the
// consent URL, the suite plays the browser.
func (g *google) connect(t *testing.T, ctx context.Context, a *agent) {
	t.Helper()
	c, err := a.client.ConnectGmail(ctx, apitype.GmailConnectRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.oauth.Consent(ctx, c.AuthURL); err != nil {
		t.Fatal(err)
	}
	err = waitFor(ctx, func() bool {
		list, err := a.client.GmailAccounts(ctx)
		return err == nil && len(list) == 1 && list[0].Email == gmailUser
	}, a.changed(t))
	if err != nil {
		t.Fatalf("the account was never connected: %v", err)
	}
}

// createScout creates the Gmail scout in mode and waits for its baseline
// (and, in a relay mode, the relay's watch).
func (g *google) createScout(t *testing.T, ctx context.Context, a *agent, mode string) apitype.Scout {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"email": gmailUser, "mode": mode})
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "gmail", Name: "Work mail", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	err = waitFor(ctx, func() bool {
		c := g.gmail.Calls(gmailUser)
		return c["profile"] >= 1 && (mode == "local" || c["watch"] >= 1)
	}, g.gmail.Next)
	if err != nil {
		t.Fatalf("no baseline (and watch) for the scout; Gmail calls %v: %v", g.gmail.Calls(gmailUser), err)
	}
	return sc
}

// deliver puts n personal messages in the mailbox and returns their ids.
func (g *google) deliver(t *testing.T, from, n int) []string {
	t.Helper()
	var ids []string
	for i := from; i < from+n; i++ {
		id, _, err := g.gmail.Deliver(gmailUser, personalMail(i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func personalMail(n int) []byte {
	return []byte(strings.ReplaceAll(fmt.Sprintf(`From: Bob Example <bob@partner.example>
To: ann@example.com
Subject: Contract draft %d
Date: Mon, 2 Nov 2026 10:00:00 +0000
Message-ID: <chaos-%d@partner.example>
Content-Type: text/plain; charset=utf-8

Hi Ann, please review draft %d by Friday.
`, n, n, n), "\n", "\r\n"))
}

// modifyWatch counts, per message, the label changes that took effect in
// the fake, and calls hook after one took effect and before it is
// answered: a crash there is a crash between a side effect and its
// record.
type modifyWatch struct {
	next http.Handler

	mu      sync.Mutex
	applied map[string]int
	hook    func(id string)
}

func (m *modifyWatch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, ok := modifyTarget(r)
	if !ok {
		m.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	m.next.ServeHTTP(rec, r)
	if rec.Code/100 == 2 {
		m.mu.Lock()
		m.applied[id]++
		hook := m.hook
		m.mu.Unlock()
		if hook != nil {
			hook(id)
		}
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// modifyTarget recognises POST /gmail/v1/users/{user}/messages/{id}/modify.
func modifyTarget(r *http.Request) (string, bool) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method != http.MethodPost || len(parts) != 7 || parts[0] != "gmail" || parts[4] != "messages" || parts[6] != "modify" {
		return "", false
	}
	return parts[5], true
}

func (m *modifyWatch) setHook(h func(string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = h
}

func (m *modifyWatch) count(id string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.applied[id]
}

// waitCards waits (up to three minutes: a relay that crashed holding a
// scout's sync lease keeps it two) until the scout has a suggestion
// for each message id and returns them by id; missing ones are left out.
func waitCards(t *testing.T, ctx context.Context, a *agent, scoutID string, ids []string) (map[string][]apitype.Suggestion, error) {
	var by map[string][]apitype.Suggestion
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	err := waitFor(wctx, func() bool {
		list, err := suggestions(ctx, a.client, scoutID)
		if err != nil {
			return false
		}
		by = map[string][]apitype.Suggestion{}
		for _, s := range list {
			by[s.SourceRef] = append(by[s.SourceRef], s)
		}
		for _, id := range ids {
			if len(by[id]) == 0 {
				return false
			}
		}
		return true
	}, a.changed(t))
	return by, err
}
