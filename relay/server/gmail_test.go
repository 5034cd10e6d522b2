package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/internal/wake"
	"github.com/scouts-hq/scouts/relay/gmailscout"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/relay/pushauth"
	"github.com/scouts-hq/scouts/relay/relaydb"
	"github.com/scouts-hq/scouts/relay/server"
	"github.com/scouts-hq/scouts/relay/service"
	"github.com/scouts-hq/scouts/relay/tokenseal"
)

const (
	ann        = "ann@example.com"
	pushSecret = "0123456789abcdef-push-secret"
	topic      = "projects/scouts-test/topics/gmail"
)

// gmailEnv is a relay with Gmail scouts, a fake Google (OAuth + Gmail)
// whose notifications are pushed straight to the relay's endpoint, and
// one device of Ann's.
type gmailEnv struct {
	*env
	oauth    *oauthfake.Server
	oauthURL string
	gmail    *gmailfake.Server
	// changed fires after each sync of a scout and each frame the Gmail
	// service sends a desktop.
	changed *wake.Wake
}

func newGmailEnv(t testing.TB, poll time.Duration, opts ...func(*gmailscout.Config)) *gmailEnv {
	t.Helper()
	oauth := oauthfake.New(oauthfake.Options{Account: ann})
	os := httptest.NewServer(oauth)
	t.Cleanup(os.Close)
	var e *env
	gm := gmailfake.New(gmailfake.Options{Authorize: oauth.AccessTokenEmail,
		Publish: func(ctx context.Context, _ string, data []byte) error {
			return postPush(ctx, e.http.URL+"/api/v1/scouts/webhooks/gmail?token="+pushSecret, data)
		}})
	gm.AddMailbox(ann)
	gs := httptest.NewServer(gm)
	t.Cleanup(gs.Close)
	keys, _ := tokenseal.Parse(tokenseal.NewKeyLine("k1"))
	verifier, err := pushauth.New(pushauth.Config{Secret: pushSecret})
	if err != nil {
		t.Fatal(err)
	}
	changed := &wake.Wake{}
	e = newEnvWith(t, func(db *relaydb.DB, e *env) server.Config {
		gcfg := gmailscout.Config{DB: db, Keys: keys, ClientID: oauthfake.DefaultClientID,
			ClientSecret: oauthfake.DefaultClientSecret, TokenURL: os.URL + oauthfake.TokenPath, GmailURL: gs.URL,
			Topic: topic, PollEvery: poll, Send: func(u, typ string, d any) { e.srv.Send(u, typ, d); changed.Fire() },
			Synced: func(string, error) { changed.Fire() }}
		for _, o := range opts {
			o(&gcfg)
		}
		return server.Config{Heartbeat: time.Hour, Service: service.New(service.Config{DB: db, Gmail: gmailscout.New(gcfg)}), PushAuth: verifier}
	})
	return &gmailEnv{env: e, oauth: oauth, oauthURL: os.URL, gmail: gm, changed: changed}
}

func postPush(ctx context.Context, url string, data []byte) error {
	body, _ := json.Marshal(map[string]any{"message": map[string]string{"data": base64.StdEncoding.EncodeToString(data), "messageId": "1"},
		"subscription": "projects/scouts-test/subscriptions/push"})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
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

// refreshToken runs the installed-app flow against the fake, playing the
// browser, as the desktop does before handing the token to the relay.
func (g *gmailEnv) refreshToken() string {
	t := g.t
	codes := make(chan string, 1)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { codes <- r.URL.Query().Get("code") }))
	defer cb.Close()
	ep := oauthfake.EndpointsAt(g.oauthURL)
	cfg := oauth2.Config{ClientID: oauthfake.DefaultClientID, ClientSecret: oauthfake.DefaultClientSecret,
		Endpoint:    oauth2.Endpoint{AuthURL: ep.Auth, TokenURL: ep.Token},
		RedirectURL: cb.URL + "/oauth2/callback", Scopes: []string{"https://www.googleapis.com/auth/gmail.modify", "openid", "email"}}
	v := oauth2.GenerateVerifier()
	if _, err := g.oauth.Consent(context.Background(), cfg.AuthCodeURL("st", oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(v))); err != nil {
		t.Fatal(err)
	}
	tok, err := cfg.Exchange(context.Background(), <-codes, oauth2.VerifierOption(v))
	if err != nil || tok.RefreshToken == "" {
		t.Fatalf("exchange: %+v %v", tok, err)
	}
	return tok.RefreshToken
}

func (g *gmailEnv) deliver(subject, from, body string, labels ...string) string {
	g.t.Helper()
	raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: Mon, 2 Nov 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n", from, ann, subject, body)
	id, _, err := g.gmail.Deliver(ann, []byte(raw), labels...)
	if err != nil {
		g.t.Fatal(err)
	}
	return id
}

// frames reads until want proposals have arrived (acking each), returning
// them and the scout_status frames seen on the way.
func (r *raw) proposals(want int, stop func(protocol.ScoutStatus) bool) (props []protocol.Proposal, statuses []protocol.ScoutStatus) {
	r.t.Helper()
	for len(props) < want || (stop != nil && !slices.ContainsFunc(statuses, stop)) {
		f, err := r.recv()
		if err != nil {
			r.t.Fatalf("after %d proposals and statuses %+v: %v", len(props), statuses, err)
		}
		switch f.Type {
		case protocol.TypeProposal:
			var p protocol.Proposal
			f.DecodeData(&p)
			props = append(props, p)
			r.send(protocol.TypeProposalAck, "", protocol.ProposalAck{Seqs: []int64{f.Seq}})
		case protocol.TypeScoutStatus:
			var st protocol.ScoutStatus
			f.DecodeData(&st)
			statuses = append(statuses, st)
		}
	}
	return props, statuses
}

func (r *raw) configResult() protocol.ConfigResult {
	r.t.Helper()
	for {
		f, err := r.recv()
		if err != nil {
			r.t.Fatal(err)
		}
		if f.Type == protocol.TypeConfigResult {
			var res protocol.ConfigResult
			f.DecodeData(&res)
			return res
		}
	}
}

// waitOn waits for cond, looking again each time one of sources fires,
// and fails after a minute.
func waitOn(t testing.TB, what string, cond func() bool, sources ...wake.Source) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := wake.Until(ctx, cond, sources...); err != nil {
		t.Fatalf("timed out after a minute waiting for %s", what)
	}
}

// until waits for cond on the relay's Gmail scouts, looking again after
// each sync and each frame the service sends.
func (g *gmailEnv) until(what string, cond func() bool) {
	g.t.Helper()
	waitOn(g.t, what, cond, g.changed.Next)
}

func TestGmailRelayTriage(t *testing.T) {
	g := newGmailEnv(t, 300*time.Millisecond)
	ctx := context.Background()
	r := g.dial()
	r.hello(g.token, 0)
	rt := g.refreshToken()

	g.deliver("Old mail", "Bob <bob@partner.example>", "before the scout") // never suggested
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_gmail", Kind: "gmail", Name: "Gmail", Enabled: true,
		Email: ann, Mode: protocol.ModeRelayTriage, RefreshToken: rt,
		Rules: []protocol.TriageRule{{ID: "shops", Action: "deny", Domains: []string{"shop.example"}}}})
	if res := r.configResult(); !res.OK || res.PushTopic != topic {
		t.Fatalf("register: %+v", res)
	}
	g.until("baseline and watch", func() bool {
		sc, err := g.db.GmailScout(ctx, "sc_gmail")
		return err == nil && sc.Gmail.Cursor > 0 && !sc.Gmail.WatchExpires.IsZero()
	})
	sc, _ := g.db.GmailScout(ctx, "sc_gmail")
	if bytes.Contains(sc.Gmail.TokenSealed, []byte(rt)) {
		t.Fatal("the refresh token is stored in clear")
	}

	// Every mail becomes a proposal with card fields, a why and its
	// verdict: relevant mail for the inbox, a denied sender as spam and a
	// promotion as nothing to act on (the desktop's Spam and Screened
	// lanes) — nothing is dropped unseen.
	want := []string{g.deliver("Contract draft", "Bob <bob@partner.example>", "BODY-MARKER-1 please review")}
	want = append(want, g.deliver("50% off", "Deals <deals@shop.example>", "BODY-MARKER-2 sale"))
	want = append(want, g.deliver("Weekly picks", "News <news@letters.example>", "BODY-MARKER-3", "INBOX", "CATEGORY_PROMOTIONS"))
	want = append(want, g.deliver("Lunch?", "Cy <cy@friends.example>", "BODY-MARKER-4 tomorrow at noon"))
	verdicts := []string{"relevant", "spam", "skip", "relevant"}
	props, _ := r.proposals(4, nil)
	for i, p := range props {
		if p.SourceRef != want[i] || p.SourceType != "gmail" || p.Reason == "" || p.Path == "" || p.Verdict != verdicts[i] {
			t.Fatalf("proposal %d: %+v (want ref %s, verdict %s, with a why)", i, p, want[i], verdicts[i])
		}
		// A promotion skipped unread has no card; the others have theirs.
		if i != 2 && (p.Subject == "" || !strings.Contains(p.Sender, "@") || !strings.Contains(p.Snippet, "BODY-MARKER")) {
			t.Fatalf("proposal %d without its card: %+v", i, p)
		}
	}

	// Duplicate notifications: no duplicate proposals.
	g.gmail.DuplicateNotifications(ann, true)
	want = []string{g.deliver("Invoice 7", "Acme <billing@acme.example>", "BODY-MARKER-5"), g.deliver("Invoice 8", "Acme <billing@acme.example>", "BODY-MARKER-6")}
	props, _ = r.proposals(2, nil)
	g.gmail.DuplicateNotifications(ann, false)
	// Dropped notification: the fallback poll finds it.
	g.gmail.DropNotifications(ann, 1)
	want = append(want, g.deliver("Dropped push", "Bob <bob@partner.example>", "BODY-MARKER-7"))
	more, _ := r.proposals(1, nil)
	props = append(props, more...)
	var got []string
	for _, p := range props {
		got = append(got, p.SourceRef)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("proposals %v, want %v: duplicates or losses", got, want)
	}

	// A lost history cursor: recovered from the message list, with a note.
	g.gmail.ExpireHistory(ann, g.gmail.HistoryID(ann)+1)
	want = []string{g.deliver("After the gap", "Bob <bob@partner.example>", "BODY-MARKER-8")}
	props, statuses := r.proposals(1, func(st protocol.ScoutStatus) bool { return strings.Contains(st.Message, "re-read") })
	if props[0].SourceRef != want[0] {
		t.Fatalf("after recovery got %s, want %s (statuses %+v)", props[0].SourceRef, want[0], statuses)
	}

	// Spam goes to the Trash only once the scout says so.
	spam := g.deliver("Cheap pills", "X <x@shop.example>", "BODY-MARKER-9")
	if props, _ := r.proposals(1, nil); props[0].SourceRef != spam || props[0].Verdict != "spam" {
		t.Fatalf("the spam's proposal: %+v", props[0])
	}
	if labels, _ := g.gmail.Message(ann, spam); slices.Contains(labels, "TRASH") {
		t.Fatal("spam trashed with auto-trash off")
	}
	r.send(protocol.TypeScoutUpdate, "op-2", protocol.ScoutConfig{ScoutID: "sc_gmail", Kind: "gmail", Name: "Gmail", Enabled: true,
		Email: ann, Mode: protocol.ModeRelayTriage, AutoTrashSpam: true,
		Rules: []protocol.TriageRule{{ID: "shops", Action: "deny", Domains: []string{"shop.example"}}}})
	if res := r.configResult(); !res.OK {
		t.Fatalf("update: %+v", res)
	}
	spam2 := g.deliver("Cheap pills again", "X <x@shop.example>", "BODY-MARKER-10")
	// The trash comes before the verdict is queued: once proposed, trashed.
	if props, _ := r.proposals(1, nil); props[0].SourceRef != spam2 {
		t.Fatalf("the second spam's proposal: %+v", props[0])
	}
	if l, _ := g.gmail.Message(ann, spam2); !slices.Contains(l, "TRASH") {
		t.Fatalf("spam not trashed with auto-trash on: labels %v", l)
	}

	// Access revoked: the scout is disabled and the desktop told to reconnect.
	g.gmail.RevokeAll(ann)
	for _, tok := range []string{rt} {
		g.oauth.Revoke(tok)
	}
	g.deliver("After revocation", "Bob <bob@partner.example>", "BODY-MARKER-11")
	_, statuses = r.proposals(0, func(st protocol.ScoutStatus) bool { return st.State == protocol.ScoutAuthExpired })
	st := statuses[len(statuses)-1]
	if st.Action != "reconnect" || !strings.Contains(st.Message, "reconnect") {
		t.Fatalf("auth status %+v", st)
	}
	if sc, _ := g.db.GmailScout(ctx, "sc_gmail"); sc.Enabled {
		t.Fatal("scout still enabled after its access expired")
	}

	// Nothing of the mail is at rest on the relay.
	g.db.Close()
	assertNoMarkers(t, g.dbPath)
}

func assertNoMarkers(t *testing.T, dbPath string) {
	t.Helper()
	files, _ := filepath.Glob(dbPath + "*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"BODY-MARKER", "Contract draft", "please review", "Lunch?"} {
			if bytes.Contains(b, []byte(m)) {
				t.Errorf("%s holds %q", filepath.Base(f), m)
			}
		}
	}
}

// A scout whose user's desktops have all been away longer than its
// inactivity period pauses (and says so) instead of piling up verdicts; it
// resumes by itself once a desktop is back.
func TestGmailInactivityPause(t *testing.T) {
	var now atomic.Pointer[time.Time]
	t0 := time.Now()
	now.Store(&t0)
	g := newGmailEnv(t, time.Hour, func(c *gmailscout.Config) {
		c.Now = func() time.Time { return *now.Load() }
	})
	// The relay's database shares the clock: devices are "seen" on it.
	g.db.SetClock(func() time.Time { return *now.Load() })
	r := g.dial()
	r.hello(g.token, 0)
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_p", Kind: "gmail", Name: "Gmail", Enabled: true,
		Email: ann, Mode: protocol.ModeRelayTriage, RefreshToken: g.refreshToken(), InactivityPauseDays: 3})
	if res := r.configResult(); !res.OK {
		t.Fatalf("register: %+v", res)
	}
	g.until("baseline", func() bool {
		sc, err := g.db.GmailScout(context.Background(), "sc_p")
		return err == nil && sc.Gmail.Cursor > 0
	})
	// Four days later, with no desktop since: the next push pauses it.
	later := t0.Add(4 * 24 * time.Hour)
	now.Store(&later)
	g.deliver("While away", "Bob <bob@partner.example>", "BODY")
	_, statuses := r.proposals(0, func(st protocol.ScoutStatus) bool { return st.State == protocol.ScoutPaused })
	if st := statuses[len(statuses)-1]; !strings.Contains(st.Message, "3 days") {
		t.Fatalf("pause status %+v", st)
	}
	if n := g.gmail.Calls(ann)["messages.get"]; n != 0 {
		t.Fatalf("a paused scout read %d messages", n)
	}
	// A desktop connects: the scout resumes and the waiting mail arrives.
	r2 := g.dial()
	r2.hello(g.token, 0)
	props, _ := r2.proposals(1, nil)
	if props[0].Subject != "While away" {
		t.Fatalf("after resuming: %+v", props[0])
	}
}

// A watch close to expiry is renewed; a renewal that fails is shown on the
// scout and retried until it works — never a silent lapse.
func TestGmailWatchRenewal(t *testing.T) {
	var now atomic.Pointer[time.Time]
	t0 := time.Now()
	now.Store(&t0)
	g := newGmailEnv(t, time.Hour, func(c *gmailscout.Config) {
		c.Now = func() time.Time { return *now.Load() }
		c.RenewCheck = 20 * time.Millisecond
	})
	g.db.SetClock(func() time.Time { return *now.Load() })
	r := g.dial()
	r.hello(g.token, 0)
	r.send(protocol.TypeScoutRegister, "op-1", protocol.ScoutConfig{ScoutID: "sc_w", Kind: "gmail", Name: "Gmail", Enabled: true,
		Email: ann, Mode: protocol.ModeRelayTriage, RefreshToken: g.refreshToken()})
	if res := r.configResult(); !res.OK {
		t.Fatalf("register: %+v", res)
	}
	var first time.Time
	g.until("the first watch", func() bool {
		sc, err := g.db.GmailScout(context.Background(), "sc_w")
		first = sc.Gmail.WatchExpires
		return err == nil && !first.IsZero()
	})
	if d := first.Sub(t0); d < 6*24*time.Hour || d > 8*24*time.Hour {
		t.Fatalf("watch expires in %s, want about 7 days", d)
	}
	// Six and a half days on, Gmail refuses the renewal for a while.
	g.gmail.Fail(ann, "watch", http.StatusServiceUnavailable, -1, 0)
	later := t0.Add(6*24*time.Hour + 12*time.Hour)
	now.Store(&later)
	_, statuses := r.proposals(0, func(st protocol.ScoutStatus) bool {
		return st.State == protocol.ScoutError && strings.Contains(st.Message, "watch")
	})
	t.Logf("while failing: %s", statuses[len(statuses)-1].Message)
	// Gmail answers again: the watch is renewed and the scout is well.
	g.gmail.Fail(ann, "watch", 0, 0, 0)
	r.proposals(0, func(st protocol.ScoutStatus) bool { return st.State == protocol.ScoutOK })
	sc, _ := g.db.GmailScout(context.Background(), "sc_w")
	// (The fake dates watches by its own clock, the real one.)
	if !sc.Gmail.WatchExpires.After(first) {
		t.Fatalf("watch still expires %s after the renewal (first: %s)", sc.Gmail.WatchExpires, first)
	}
}
