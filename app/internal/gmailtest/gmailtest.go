// Package gmailtest runs the desktop's Gmail against fakes of Google in
// one test process: OAuth (oauthfake) and the Gmail API (gmailfake) served
// on loopback, the real account manager (app/gmailauth) over an
// encrypted-file keyring whose "browser" consents at once, and, for the
// relay modes, an in-process relay with Gmail scouts that can be stopped
// and started again where the desktop expects it.
package gmailtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/internal/wake"
)

// Account is the Google account the fakes know.
const Account = "ann@example.com"

// Google is Google as the tests see it.
type Google struct {
	t        testing.TB
	OAuth    *oauthfake.Server
	OAuthURL string
	Gmail    *gmailfake.Server
	GmailURL string
	// push, when set, receives the mailbox's Pub/Sub notifications (the
	// relay's push endpoint); nil drops them, as a Pub/Sub without a
	// subscriber would.
	push atomic.Pointer[func(ctx context.Context, data []byte) error]
}

// NewGoogle serves the fakes with one mailbox, Account.
func NewGoogle(t testing.TB) *Google {
	t.Helper()
	g := &Google{t: t, OAuth: oauthfake.New(oauthfake.Options{Account: Account})}
	os := httptest.NewServer(g.OAuth)
	t.Cleanup(os.Close)
	g.OAuthURL = os.URL
	g.Gmail = gmailfake.New(gmailfake.Options{Authorize: g.OAuth.AccessTokenEmail, QuotaPerMinute: -1,
		Publish: func(ctx context.Context, _ string, data []byte) error {
			if p := g.push.Load(); p != nil {
				return (*p)(ctx, data)
			}
			return nil
		}})
	g.Gmail.AddMailbox(Account)
	gs := httptest.NewServer(g.Gmail)
	t.Cleanup(gs.Close)
	g.GmailURL = gs.URL
	return g
}

// Deliver puts a personal mail (one the default triage finds relevant)
// in the mailbox and returns its message id.
func (g *Google) Deliver(n int, marker string) string {
	g.t.Helper()
	raw := fmt.Sprintf("From: Bob Example <bob@partner.example>\r\nTo: %s\r\nSubject: Contract draft %d (%s)\r\n"+
		"Date: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <c%d-%s@partner.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"+
		"Hi Ann, please review draft %d (%s) by Friday.\r\n", Account, n, marker, n, marker, n, marker)
	id, _, err := g.Gmail.Deliver(Account, []byte(raw))
	if err != nil {
		g.t.Fatal(err)
	}
	return id
}

// pushTo sends notifications to a relay's push endpoint.
func (g *Google) pushTo(url string) {
	f := func(ctx context.Context, data []byte) error {
		body, _ := json.Marshal(map[string]any{"message": map[string]string{"data": base64.StdEncoding.EncodeToString(data), "messageId": "1"},
			"subscription": "projects/scouts-test/subscriptions/push"})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode/100 != 2 {
			return fmt.Errorf("push answered %s", res.Status)
		}
		return nil
	}
	g.push.Store(&f)
}

// Endpoints are the OAuth fake's URLs.
func (g *Google) Endpoints() oauthfake.Endpoints { return oauthfake.EndpointsAt(g.OAuthURL) }

// keyringDir is where a desktop data directory keeps its file keyring.
func keyringDir(dataDir string) string { return filepath.Join(dataDir, "keyring") }

func explained(explain []func() string) string {
	var why []string
	for _, e := range explain {
		why = append(why, e())
	}
	return strings.Join(why, "; ")
}

// UntilBus waits for cond, looking again after each event of a desktop
// core's bus, and fails the test after a minute saying what explain saw.
// It listens before the first look, so a change between the look and the
// wait still wakes it: for state the core announces once it is true.
func UntilBus(t testing.TB, bus *bus.Bus, what string, cond func() bool, explain ...func() string) {
	t.Helper()
	sub, _, _ := bus.Subscribe(0, 1024)
	defer func() { sub.Close() }()
	deadline := time.After(time.Minute)
	for !cond() {
		select {
		case _, ok := <-sub.C:
			if !ok { // dropped for being slow: look again, listening anew
				sub, _, _ = bus.Subscribe(0, 1024)
			}
		case <-deadline:
			t.Fatalf("timed out after a minute waiting for %s %s", what, explained(explain))
		}
	}
}

// until waits for cond, looking again each time one of sources fires,
// and fails the test after a minute saying what explain saw.
func until(t testing.TB, what string, cond func() bool, explain []func() string, sources ...wake.Source) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := wake.Until(ctx, cond, sources...); err != nil {
		t.Fatalf("timed out after a minute waiting for %s %s", what, explained(explain))
	}
}
