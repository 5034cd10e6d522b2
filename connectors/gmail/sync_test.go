package gmail_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/scouts/triage"
)

const ann = "ann@example.com"

type env struct {
	fake   *gmailfake.Server
	client *gmail.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	fake := gmailfake.New(gmailfake.Options{})
	fake.AddMailbox(ann)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "fake-token-for:" + ann, TokenType: "Bearer"})
	c, err := gmail.NewClient(context.Background(), gmail.Options{BaseURL: srv.URL, TokenSource: ts, Backoff: time.Millisecond, MaxWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &env{fake: fake, client: c}
}

func (e *env) deliver(t *testing.T, raw string, labels ...string) string {
	t.Helper()
	id, _, err := e.fake.Deliver(ann, []byte(strings.ReplaceAll(raw, "\n", "\r\n")), labels...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func personal(n int) string {
	return fmt.Sprintf(`From: Bob Example <bob@partner.example>
To: ann@example.com
Subject: Contract draft %d
Date: Mon, 2 Nov 2026 10:00:00 +0000
Message-ID: <c%d@partner.example>
Content-Type: text/plain; charset=utf-8

Hi Ann, please review draft %d of the contract by Friday.
`, n, n, n)
}

const bulk = `From: Deals <deals@shop.example>
To: ann@example.com
Subject: 50% off everything
Date: Mon, 2 Nov 2026 10:00:00 +0000
List-Id: <offers.shop.example>
List-Unsubscribe: <mailto:unsub@shop.example>
Precedence: bulk
Content-Type: text/plain

Sale!
`

// memSink records verdicts like the relay's queue: relevant ones only.
type memSink struct {
	mu       sync.Mutex
	relevant []gmail.Verdict
	all      []gmail.Verdict
}

func (m *memSink) Seen(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.ContainsFunc(m.relevant, func(v gmail.Verdict) bool { return v.ID == id }), nil
}
func (m *memSink) Record(_ context.Context, v gmail.Verdict) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all = append(m.all, v)
	if v.Decision.Verdict == triage.Relevant {
		m.relevant = append(m.relevant, v)
	}
	return nil
}

func pipeline(t *testing.T, rules ...triage.Rule) *triage.Pipeline {
	p, err := triage.New(triage.Config{Scout: "s1", Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSyncBaselineThenNewMail(t *testing.T) {
	e := newEnv(t)
	e.deliver(t, personal(0)) // before the scout existed: never suggested
	sink := &memSink{}
	s := &gmail.Syncer{Client: e.client, Pipeline: pipeline(t), Sink: sink}
	res, err := s.Run(context.Background(), 0, time.Time{})
	if err != nil || !res.Baseline || res.Cursor == 0 {
		t.Fatalf("baseline: %+v %v", res, err)
	}
	want := []string{e.deliver(t, personal(1)), e.deliver(t, personal(2))}
	e.deliver(t, bulk, "INBOX", "CATEGORY_PROMOTIONS")       // a promotion: skipped by a heuristic
	e.deliver(t, personal(3), "SPAM")                        // Gmail's own spam verdict: left alone
	e.deliver(t, personal(4), "SENT")                        // what Ann sent
	want = append(want, e.deliver(t, personal(5), "UNREAD")) // filtered out of the Inbox: still read
	res2, err := s.Run(context.Background(), res.Cursor, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range sink.relevant {
		got = append(got, v.ID)
		if !strings.HasPrefix(v.Card.Subject, "Contract draft") || !strings.Contains(v.Card.Sender, "bob@partner.example") ||
			!strings.Contains(v.Card.Snippet, "please review draft") {
			t.Errorf("card %+v lacks subject, sender or snippet", v.Card)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("relevant %v, want %v", got, want)
	}
	if res2.Cursor <= res.Cursor || res2.Skip != 1 || res2.Relevant != 3 {
		t.Fatalf("result %+v", res2)
	}
	// Without a model, only headers were read: one metadata get per new
	// message, no full fetch.
	if calls := e.fake.Calls(ann); calls["messages.get"] != res2.Listed-1 {
		t.Fatalf("messages.get calls = %d (%v) for %d listed messages, want one each (metadata only) but the unread promotion", calls["messages.get"], calls, res2.Listed)
	}
	// Running again from the same cursor (a crash before saving it)
	// yields nothing twice.
	res3, err := s.Run(context.Background(), res.Cursor, time.Now())
	if err != nil || res3.Seen != 3 || len(sink.relevant) != 3 {
		t.Fatalf("replay: %+v %v, %d relevant", res3, err, len(sink.relevant))
	}
}

func TestSyncAutoTrashOnlyWhenOn(t *testing.T) {
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint("auto-trash=", on), func(t *testing.T) {
			e := newEnv(t)
			s := &gmail.Syncer{Client: e.client, Pipeline: pipeline(t, triage.Rule{ID: "block", Action: triage.Deny, Domains: []string{"shop.example"}}),
				Sink: &memSink{}, AutoTrashSpam: on}
			res, _ := s.Run(context.Background(), 0, time.Time{})
			id := e.deliver(t, bulk)
			res, err := s.Run(context.Background(), res.Cursor, time.Now())
			if err != nil || res.Spam != 1 {
				t.Fatalf("%+v %v", res, err)
			}
			labels, _ := e.fake.Message(ann, id)
			if trashed := slices.Contains(labels, "TRASH"); trashed != on {
				t.Fatalf("labels %v with auto-trash %v", labels, on)
			}
			if calls := e.fake.Calls(ann); calls["messages.delete"] != 0 {
				t.Fatal("a message was deleted")
			}
		})
	}
}

func TestSyncRecoversLostCursor(t *testing.T) {
	e := newEnv(t)
	e.deliver(t, personal(0)) // before the scout: never suggested, not even by a resync
	created := time.Now()
	for !time.Now().After(created.Truncate(time.Millisecond).Add(time.Millisecond)) {
		// Gmail's dates are in milliseconds: let the clock leave the
		// scout's creation millisecond before new mail arrives.
	}
	sink := &memSink{}
	s := &gmail.Syncer{Client: e.client, Pipeline: pipeline(t), Sink: sink, NotBefore: created}
	res, _ := s.Run(context.Background(), 0, time.Time{})
	ids := []string{e.deliver(t, personal(1)), e.deliver(t, personal(2))}
	e.fake.ExpireHistory(ann, e.fake.HistoryID(ann)+1)
	res2, err := s.Run(context.Background(), res.Cursor, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if res2.Recovered == "" || !strings.Contains(res2.Recovered, "re-read") || len(sink.relevant) != 2 || res2.Cursor < res.Cursor {
		t.Fatalf("recovery: %+v, %d relevant", res2, len(sink.relevant))
	}
	for i, v := range sink.relevant {
		if v.ID != ids[i] {
			t.Fatalf("recovered %v, want %v oldest first", v.ID, ids)
		}
	}
}

func TestClientErrorsClassified(t *testing.T) {
	e := newEnv(t)
	_, hid, err := e.client.Profile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 429 twice, then success: retried, honouring Retry-After (capped).
	e.fake.Fail(ann, "history.list", 429, 2, time.Second)
	if _, err := e.client.History(context.Background(), hid, func(context.Context, []gmail.Added) error { return nil }); err != nil {
		t.Fatalf("after two 429s: %v", err)
	}
	// 503 beyond the attempts: a TransientError.
	e.fake.Fail(ann, "history.list", 503, 10, 0)
	_, err = e.client.History(context.Background(), hid, func(context.Context, []gmail.Added) error { return nil })
	var te *gmail.TransientError
	if !errors.As(err, &te) {
		t.Fatalf("persistent 503: %v, want TransientError", err)
	}
	e.fake.Fail(ann, "history.list", 0, 0, 0)
	// 404 on history: ErrHistoryGone.
	e.fake.ExpireHistory(ann, hid+1)
	if _, err := e.client.History(context.Background(), hid, nil); !gmail.IsHistoryGone(err) {
		t.Fatalf("expired history: %v", err)
	}
	// 401: an AuthError telling the user to reconnect.
	e.fake.RevokeAll(ann)
	_, _, err = e.client.Profile(context.Background())
	if !gmail.IsAuth(err) || !strings.Contains(err.Error(), "reconnect") {
		t.Fatalf("revoked: %v", err)
	}
}

func TestReadSanitisesHTML(t *testing.T) {
	e := newEnv(t)
	id := e.deliver(t, `From: News <news@site.example>
To: ann@example.com
Subject: Hello
Content-Type: text/html; charset=utf-8

<html><head><script>alert(1)</script><style>p{}</style></head><body><p onclick="x()">Dear Ann,</p>
<img src="https://tracker.example/p.gif"><a href="https://site.example/a">read</a><a href="javascript:evil()">bad</a>
<form action="https://phish.example"><input name=pw></form><iframe src="https://x.example"></iframe></body></html>
`)
	f, err := e.client.Read(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "alert(1)", "onclick", "<img", "tracker.example", "javascript:", "<form", "<iframe", "<style"} {
		if strings.Contains(f.HTML, bad) {
			t.Errorf("sanitised HTML keeps %q: %s", bad, f.HTML)
		}
	}
	if !strings.Contains(f.HTML, `href="https://site.example/a"`) || !strings.Contains(f.HTML, "nofollow") || !strings.Contains(f.Text, "Dear Ann") {
		t.Fatalf("lost the letter: html %q text %q", f.HTML, f.Text)
	}
}

// TestSyncReadsPromotionsForDesktopRules: a promotion is skipped unread
// only when no rule could want it — rules the pipeline applies, or rules
// only the desktop applies (MoreRules) — and then the card carries the
// sender and subject those rules test.
func TestSyncReadsPromotionsForDesktopRules(t *testing.T) {
	for _, more := range []bool{false, true} {
		t.Run(fmt.Sprint("more-rules=", more), func(t *testing.T) {
			e := newEnv(t)
			p, err := triage.New(triage.Config{Scout: "s1", MoreRules: more})
			if err != nil {
				t.Fatal(err)
			}
			sink := &memSink{}
			s := &gmail.Syncer{Client: e.client, Pipeline: p, Sink: sink}
			res, _ := s.Run(context.Background(), 0, time.Time{})
			e.deliver(t, bulk, "INBOX", "CATEGORY_PROMOTIONS")
			if _, err := s.Run(context.Background(), res.Cursor, time.Now()); err != nil {
				t.Fatal(err)
			}
			if len(sink.all) != 1 || (sink.all[0].Card.Sender != "") != more {
				t.Fatalf("with more rules %v: %+v", more, sink.all)
			}
		})
	}
}
