package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/fakegoogle/oauthfake"
	"github.com/scouts-hq/scouts/relay/tokenseal"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

const (
	gmailUser  = "ann@example.com"
	pushSecret = "e2e-push-secret-0123456789"
	// referenceToken lets the test read the fake mailbox itself.
	referenceToken = "e2e-reference-reader"
)

// google is the part of Google no machine here can reach, faked in the
// test process: OAuth and the Gmail API. Notifications go through the
// real Pub/Sub emulator.
type google struct {
	oauth    *oauthfake.Server
	oauthURL string
	gmail    *gmailfake.Server
	gmailURL string
}

func newGoogle(t testing.TB, emu *emulator, tweak ...func(*gmailfake.Options)) *google {
	t.Helper()
	oauth := oauthfake.New(oauthfake.Options{Account: gmailUser})
	os := httptest.NewServer(oauth)
	t.Cleanup(os.Close)
	// The test's own reference reader has a token of its own; the
	// product's processes must use tokens the OAuth fake issued.
	o := gmailfake.Options{QuotaPerMinute: -1, Authorize: func(tok string) (string, bool) {
		if tok == referenceToken {
			return gmailUser, true
		}
		return oauth.AccessTokenEmail(tok)
	}}
	if emu != nil {
		o.Publish = gmailfake.EmulatorPublisher(emu.host, nil)
	}
	for _, f := range tweak {
		f(&o)
	}
	gm := gmailfake.New(o)
	gm.AddMailbox(gmailUser)
	gs := httptest.NewServer(gm)
	t.Cleanup(gs.Close)
	return &google{oauth: oauth, oauthURL: os.URL, gmail: gm, gmailURL: gs.URL}
}

// agentFlags points the agent at the fakes, with tokens in the encrypted
// file keyring.
func (g *google) agentFlags(t testing.TB) []string {
	secret := filepath.Join(t.TempDir(), "client-secret")
	os.WriteFile(secret, []byte(oauthfake.DefaultClientSecret), 0o600)
	ep := oauthfake.EndpointsAt(g.oauthURL)
	return []string{"--google-client-id", oauthfake.DefaultClientID, "--google-client-secret-file", secret,
		"--google-auth-url", ep.Auth, "--google-token-url", ep.Token, "--google-revoke-url", ep.Revoke,
		"--gmail-api-url", g.gmailURL, "--keyring", "file", "--open-browser=false", "--poll-interval", "2s"}
}

// connect runs "Connect Gmail" as a person would: the agent hands out the
// consent URL, the test plays the browser.
func (g *google) connect(t testing.TB, a *agentProc) {
	t.Helper()
	ctx := context.Background()
	c, err := a.client.ConnectGmail(ctx, apitype.GmailConnectRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.oauth.Consent(ctx, c.AuthURL); err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(a.changed()), "the account to be connected", func() bool {
		list, err := a.client.GmailAccounts(ctx)
		return err == nil && len(list) == 1 && list[0].Email == gmailUser
	})
}

// expected replays triage over the messages added since cursor, with the
// product's own sync code and the scout's (default) pipeline, to know
// which suggestions must appear: every verdict (spam and nothing-to-act-on
// mail become cards in the Spam and Screened lanes), or only the relevant
// ones.
func (g *google) expected(t *testing.T, since uint64, everyVerdict bool) []string {
	t.Helper()
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: referenceToken})
	client, err := gmail.NewClient(context.Background(), gmail.Options{BaseURL: g.gmailURL, TokenSource: ts})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := triage.New(triage.Config{Scout: "reference"})
	sink := &refSink{all: everyVerdict}
	s := &gmail.Syncer{Client: client, Pipeline: p, Sink: sink}
	if _, err := s.Run(context.Background(), since, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return sink.ids
}

type refSink struct {
	all bool
	ids []string
}

func (r *refSink) Seen(context.Context, string) (bool, error) { return false, nil }
func (r *refSink) Record(_ context.Context, v gmail.Verdict) error {
	if r.all || v.Decision.Verdict == triage.Relevant {
		r.ids = append(r.ids, v.ID)
	}
	return nil
}

func gmailSuggestions(t testing.TB, a *agentProc, scoutID string) []apitype.Suggestion {
	t.Helper()
	list, err := a.client.Suggestions(context.Background(), localclient.SuggestionQuery{Status: "all", ScoutID: scoutID, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for page := list; len(page) == 1000; {
		// The world has one scout, so paging by id alone stays in it.
		if page, err = a.client.SuggestionsAfter(context.Background(), page[len(page)-1].ID); err != nil {
			t.Fatal(err)
		}
		list = append(list, page...)
	}
	return list
}

// waitGmailSuggestions waits until the scout's suggestions are exactly
// want (as message ids): none missing, none twice, none extra.
func waitGmailSuggestions(t testing.TB, a *agentProc, ch <-chan apitype.StreamEvent, scoutID string, want []string) []apitype.Suggestion {
	t.Helper()
	deadline := time.After(120 * time.Second)
	for {
		list := gmailSuggestions(t, a, scoutID)
		var got []string
		for _, s := range list {
			got = append(got, s.SourceRef)
		}
		slices.Sort(got)
		w := slices.Clone(want)
		slices.Sort(w)
		if len(got) > len(w) {
			var extra []string
			for _, id := range got {
				if !slices.Contains(w, id) {
					extra = append(extra, id)
				}
			}
			for _, s := range list {
				if slices.Contains(extra, s.SourceRef) {
					t.Logf("extra: %+v", s)
					evs, _ := a.client.Audit(context.Background(), s.TraceID)
					for _, e := range evs {
						t.Logf("  audit: %s %s %s", e.At, e.Type, e.Summary)
					}
					sc, _ := a.client.Scout(context.Background(), scoutID)
					t.Logf("  scout created %s", sc.CreatedAt.Format(time.RFC3339Nano))
				}
			}
			t.Fatalf("%d suggestions, want %d: extras %v", len(got), len(w), extra)
		}
		if slices.Equal(got, w) {
			return list
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%d of %d suggestions after 120s", len(got), len(w))
		}
	}
}

func personalMail(n int, marker string) []byte {
	return []byte(strings.ReplaceAll(fmt.Sprintf(`From: Bob Example <bob@partner.example>
To: ann@example.com
Subject: Contract draft %d
Date: Mon, 2 Nov 2026 10:00:00 +0000
Message-ID: <c%d-%s@partner.example>
Content-Type: text/plain; charset=utf-8

Hi Ann, please review draft %d (%s) by Friday.
`, n, n, marker, n, marker), "\n", "\r\n"))
}

func TestGmailRelayTriagePush(t *testing.T) { testGmailMode(t, "relay-triage", "push") }
func TestGmailRelayTriagePull(t *testing.T) { testGmailMode(t, "relay-triage", "pull") }
func TestGmailRelayPing(t *testing.T)       { testGmailMode(t, "relay-ping", "push") }
func TestGmailLocal(t *testing.T)           { testGmailMode(t, "local", "") }

// gmailWorld is a desktop (and, but in local mode, a relay) with a Gmail
// scout on the fake mailbox, past its baseline.
type gmailWorld struct {
	g     *google
	relay *relayProc
	a     *agentProc
	scout string
	// How the agent was started, to start it again on the same data.
	home  string
	env   []string
	flags []string
}

// restartAgent stops the agent gracefully and starts it again on the same
// data directory, with the same flags.
func (w *gmailWorld) restartAgent(t *testing.T) *agentProc {
	t.Helper()
	w.a.stop()
	w.a = startAgentEnv(t, w.a.dataDir, w.home, w.env, w.flags...)
	return w.a
}

func startGmailWorld(t testing.TB, mode, transport string) *gmailWorld {
	t.Helper()
	ctx := context.Background()
	var emu *emulator
	if mode != "local" {
		emu = startEmulator(t)
	}
	g := newGoogle(t, emu)
	home := t.TempDir()
	flags := g.agentFlags(t)
	env := []string{"SCOUTS_KEYRING_PASSPHRASE=e2e keyring passphrase"}
	var relay *relayProc
	if mode != "local" {
		topic := emu.topic("gmail")
		dsn := filepath.Join(t.TempDir(), "relay.db")
		keys := filepath.Join(t.TempDir(), "token-keys")
		os.WriteFile(keys, []byte(tokenseal.NewKeyLine("k1")+"\n"), 0o600)
		ep := oauthfake.EndpointsAt(g.oauthURL)
		args := []string{"--gmail", "--google-client-id", oauthfake.DefaultClientID, "--google-client-secret", oauthfake.DefaultClientSecret,
			"--google-token-url", ep.Token, "--gmail-api-url", g.gmailURL, "--gmail-topic", topic, "--token-keys-file", keys,
			"--gmail-poll", "2s"}
		var renv []string
		if transport == "pull" {
			sub := emu.pullSubscription("gmail-pull", topic)
			args = append(args, "--gmail-pull-subscription", sub)
			renv = append(renv, "PUBSUB_EMULATOR_HOST="+emu.host)
		} else {
			args = append(args, "--push-secret", pushSecret)
		}
		relay = startRelayEnv(t, dsn, "", renv, args...)
		if transport == "push" {
			emu.pushSubscription("gmail-push", topic, relay.url+"/api/v1/scouts/webhooks/gmail?token="+pushSecret)
		}
		tokenFile := newDevice(t, dsn, gmailUser, "laptop", true)
		flags = append(flags, "--relay", relay.url, "--device-token-file", tokenFile)
	}
	a := startAgentEnv(t, t.TempDir(), home, env, flags...)
	g.connect(t, a)

	// Mail from before the scout: never suggested.
	g.gmail.Deliver(gmailUser, personalMail(0, "before"))
	cfg, _ := json.Marshal(map[string]any{"email": gmailUser, "mode": mode})
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "gmail", Name: "Work mail", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(g.gmail.Next), "the scout's baseline (and watch)", func() bool {
		c := g.gmail.Calls(gmailUser)
		return c["profile"] >= 1 && (mode == "local" || c["watch"] >= 1)
	}, func() string { return fmt.Sprintf("Gmail calls so far: %v", g.gmail.Calls(gmailUser)) })
	return &gmailWorld{g: g, relay: relay, a: a, scout: sc.ID, home: home, env: env, flags: flags}
}

func testGmailMode(t *testing.T, mode, transport string) {
	ctx := context.Background()
	w := startGmailWorld(t, mode, transport)
	g, a, relay := w.g, w.a, w.relay
	stream := a.events(t)

	// Batch 1: real corpus mail through the mailbox.
	start := g.gmail.HistoryID(gmailUser)
	if _, err := gmailfake.LoadCorpus(g.gmail, gmailUser, corpustest.ForTest(t), gmailfake.CorpusOptions{Groups: corpus.DevGroups(), Limit: 40}); err != nil {
		t.Fatal(err)
	}
	want := g.expected(t, start, true)
	if len(want) == 0 {
		t.Fatal("the reference triage found nothing relevant in 40 corpus messages")
	}
	list := waitGmailSuggestions(t, a, stream, w.scout, want)
	for _, s := range list {
		if s.Title == "" || s.Sender == "" || s.Reason == "" || !strings.Contains(s.Reason, "decided by") {
			t.Fatalf("suggestion without subject, sender or why: %+v", s)
		}
	}

	// Batch 2: duplicated and dropped notifications — the fallback poll
	// finds the dropped ones, the duplicates change nothing.
	g.gmail.DuplicateNotifications(gmailUser, true)
	g.gmail.DropNotifications(gmailUser, 3)
	var more []string
	for i := 1; i <= 6; i++ {
		id, _, _ := g.gmail.Deliver(gmailUser, personalMail(i, "batch2"))
		more = append(more, id)
	}
	g.gmail.DuplicateNotifications(gmailUser, false)
	want = append(want, more...)
	list = waitGmailSuggestions(t, a, stream, w.scout, want)

	// A lost history cursor is recovered, and says so.
	g.gmail.ExpireHistory(gmailUser, g.gmail.HistoryID(gmailUser)+1)
	id, _, _ := g.gmail.Deliver(gmailUser, personalMail(9, "after-gap"))
	want = append(want, id)
	list = waitGmailSuggestions(t, a, stream, w.scout, want)
	waitOn(t, on(a.changed()), "the recovered note", func() bool {
		evs, err := a.client.Audit(ctx, "")
		return err == nil && slices.ContainsFunc(evs, func(e apitype.AuditEvent) bool { return strings.Contains(e.Summary, "re-read") })
	})

	// Read the full email, then approve it and archive it in Gmail.
	var last apitype.Suggestion
	for _, s := range list {
		if s.SourceRef == id {
			last = s
		}
	}
	content, err := a.client.Content(ctx, last.ID)
	if err != nil || !strings.Contains(content.Text, "after-gap") {
		t.Fatalf("read full email: %+v %v", content, err)
	}
	if _, err := a.client.Approve(ctx, last.ID, apitype.Approve{As: "task", Gmail: &apitype.GmailAction{Archive: true}}); err != nil {
		t.Fatal(err)
	}
	waitOn(t, on(g.gmail.Next), "the approved mail to leave the Inbox", func() bool {
		labels, _ := g.gmail.Message(gmailUser, id)
		return !slices.Contains(labels, "INBOX")
	})

	// Access revoked at Google: the scout says to reconnect.
	g.gmail.RevokeAll(gmailUser)
	g.gmail.Deliver(gmailUser, personalMail(10, "revoked"))
	waitOn(t, on(a.changed()), "the reconnect message on the scout", func() bool {
		s, err := a.client.Scout(ctx, w.scout)
		return err == nil && strings.Contains(s.Health.LastError, "reconnect")
	})

	if relay != nil {
		relay.kill()
		assertRelayHoldsNoMail(t, relay, []string{"please review draft", "after-gap", "batch2"})
	}
}

// assertRelayHoldsNoMail searches the relay's database files and its log
// for fragments of mail bodies.
func assertRelayHoldsNoMail(t *testing.T, r *relayProc, fragments []string) {
	t.Helper()
	files, _ := filepath.Glob(r.dsn + "*")
	blobs := map[string][]byte{"relay log": []byte(r.stderr.String())}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blobs[filepath.Base(f)] = b
	}
	for name, b := range blobs {
		for _, frag := range fragments {
			if strings.Contains(string(b), frag) {
				t.Errorf("%s holds mail content %q", name, frag)
			}
		}
	}
}

// TestGmailRelayHoldsNoContent: after relay-triage has judged and
// delivered over 2 000 real corpus messages, none of 200 random fragments
// of their bodies is in the relay's database files or its log.
func TestGmailRelayHoldsNoContent(t *testing.T) {
	if testing.Short() {
		t.Skip("2 000 messages through the relay: skipped with -short")
	}
	w := startGmailWorld(t, "relay-triage", "push")
	c := corpustest.ForTest(t)
	start := w.g.gmail.HistoryID(gmailUser)
	n, err := gmailfake.LoadCorpus(w.g.gmail, gmailUser, c, gmailfake.CorpusOptions{Groups: corpus.DevGroups(), Limit: 2100})
	if err != nil || n < 2000 {
		t.Fatalf("loaded %d corpus messages: %v", n, err)
	}
	want := w.g.expected(t, start, true)
	waitGmailSuggestions(t, w.a, w.a.events(t), w.scout, want)
	frags := bodyFragments(t, c, 200)
	w.relay.kill()
	assertRelayHoldsNoMail(t, w.relay, frags)
	t.Logf("%d messages, %d suggestions, %d fragments searched", n, len(want), len(frags))
}

// bodyFragments picks n random 24-character fragments of the corpus'
// message bodies (text a person wrote, not headers).
func bodyFragments(t *testing.T, c *corpus.Corpus, n int) []string {
	t.Helper()
	var bodies []string
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			text, err := mailtext.Extract(it.Raw, 4000)
			if err == nil && len(text) > 200 {
				bodies = append(bodies, text)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var out []string
	for len(out) < n {
		b := bodies[rng.IntN(len(bodies))]
		i := 40 + rng.IntN(len(b)-100)
		frag := strings.TrimSpace(b[i : i+24])
		if len(strings.Fields(frag)) >= 3 && utf8.ValidString(frag) {
			out = append(out, frag)
		}
	}
	return out
}
