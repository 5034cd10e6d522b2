package gmail_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/fakegoogle/gmailfake"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// awaitWorld is a local Gmail scout's connector watching the person's
// sent mail, over the fake Gmail, with one clock for both.
type awaitWorld struct {
	fake   *gmailfake.Server
	conn   *gmail.Connector
	store  *memAwait
	mu     sync.Mutex
	now    time.Time
	cursor uint64
}

func (w *awaitWorld) Now() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.now }
func (w *awaitWorld) advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(d)
}
func (w *awaitWorld) Load(context.Context) (uint64, time.Time, error) {
	return w.cursor, time.Time{}, nil
}
func (w *awaitWorld) Save(_ context.Context, c uint64) error { w.cursor = c; return nil }

func newAwaitWorld(t *testing.T, store *memAwait) *awaitWorld {
	t.Helper()
	// Tuesday 3 November 2026, 10:00 UTC.
	w := &awaitWorld{now: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC), store: store}
	w.fake = gmailfake.New(gmailfake.Options{Now: w.Now})
	w.fake.AddMailbox(ann)
	srv := httptest.NewServer(w.fake)
	t.Cleanup(srv.Close)
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "fake-token-for:" + ann, TokenType: "Bearer"})
	c, err := gmail.NewClient(context.Background(), gmail.Options{BaseURL: srv.URL, TokenSource: ts, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w.conn, err = gmail.NewConnector(gmail.ConnectorOptions{Client: c, Pipeline: pipeline(t), Cursor: w,
		Seen:      func(context.Context, string) (bool, error) { return false, nil },
		FollowUps: &gmail.FollowUps{After: 3 * 24 * time.Hour, Me: ann, Store: store, Now: w.Now, Location: time.UTC}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// run syncs once and returns what the page held besides new mail: the
// follow-up cards and the withdrawals.
func (w *awaitWorld) run(t *testing.T) (cards, withdrawn []scouts.ItemRef) {
	t.Helper()
	err := w.conn.ListNew(context.Background(), func(_ context.Context, refs []scouts.ItemRef) error {
		for _, r := range refs {
			switch {
			case r.Withdraw != "":
				withdrawn = append(withdrawn, r)
			case r.Meta != nil && r.Meta.Reminder:
				cards = append(cards, r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cards, withdrawn
}

func (w *awaitWorld) deliver(t *testing.T, raw string, labels ...string) string {
	t.Helper()
	id, _, err := w.fake.Deliver(ann, []byte(strings.ReplaceAll(raw, "\n", "\r\n")), labels...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

const draftSent = `From: Ann <ann@example.com>
To: Ana Lima <ana@partner.example>
Cc: ann@example.com
Subject: Contract draft
Message-ID: <draft-1@example.com>
Content-Type: text/plain

Here is the contract draft; tell me what you think.
`

const draftAnswer = `From: Ana Lima <ana@partner.example>
To: ann@example.com
Subject: Re: Contract draft
In-Reply-To: <draft-1@example.com>
Message-ID: <re-draft-1@partner.example>
Content-Type: text/plain

Looks good, signing tomorrow.
`

// memAwait is an AwaitStore in memory.
type memAwait struct {
	mu   sync.Mutex
	rows map[string]gmail.Awaited
}

func (m *memAwait) AwaitedThreads(_ context.Context, ids []string) (map[string]gmail.Awaited, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]gmail.Awaited{}
	for _, id := range ids {
		if r, ok := m.rows[id]; ok {
			out[id] = r
		}
	}
	return out, nil
}

func (m *memAwait) ToCheck(_ context.Context, now, stale time.Time) ([]gmail.Awaited, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []gmail.Awaited
	for _, r := range m.rows {
		if (r.State == gmail.AwaitWaiting && !now.Before(r.DueAt)) || (r.State == gmail.AwaitCarded && r.CheckedAt.Before(stale)) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (m *memAwait) SaveAwaited(_ context.Context, rows []gmail.Awaited) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		m.rows = map[string]gmail.Awaited{}
	}
	for _, r := range rows {
		m.rows[r.ThreadID] = r
	}
	return nil
}

// TestASentMailWithoutAnAnswerBecomesACardAndTheAnswerWithdrawsIt: Ann
// sends Ana the contract draft on a Tuesday; two days on nothing is said,
// three days on the scout makes one card "No reply from Ana Lima to
// 'Contract draft' since Tuesday — follow up?" (a task, once however
// often it syncs); Ana's answer in the thread withdraws it, saying so.
func TestASentMailWithoutAnAnswerBecomesACardAndTheAnswerWithdrawsIt(t *testing.T) {
	w := newAwaitWorld(t, &memAwait{})
	w.run(t) // baseline
	sent := w.deliver(t, draftSent, "SENT")
	if cards, _ := w.run(t); len(cards) != 0 {
		t.Fatalf("a card at once: %+v", cards)
	}
	w.advance(2 * 24 * time.Hour)
	if cards, _ := w.run(t); len(cards) != 0 {
		t.Fatalf("a card after two days: %+v", cards)
	}
	w.advance(24 * time.Hour)
	cards, _ := w.run(t)
	if len(cards) != 1 {
		t.Fatalf("cards after three days: %d", len(cards))
	}
	c := cards[0]
	if c.Ref != sent || c.Meta.Title != "No reply from Ana Lima to 'Contract draft' since Tuesday — follow up?" ||
		c.Meta.ProposedKind != scouts.EntityTask || !strings.Contains(c.Meta.Excerpt, "contract draft") ||
		!strings.Contains(c.Meta.Reason, "ana@partner.example") || strings.Contains(c.Meta.Reason, "ann@") {
		t.Fatalf("card: %s %+v", c.Ref, *c.Meta)
	}
	if again, _ := w.run(t); len(again) != 0 {
		t.Fatalf("the card made again: %+v", again)
	}

	w.advance(time.Hour)
	w.deliver(t, draftAnswer)
	cards, withdrawn := w.run(t)
	if len(cards) != 0 || len(withdrawn) != 1 || withdrawn[0].Ref != sent ||
		withdrawn[0].Withdraw != "Withdrawn: Ana Lima answered on Fri 6 Nov." {
		t.Fatalf("after the answer: cards %+v, withdrawn %+v", cards, withdrawn)
	}
	w.advance(2 * time.Hour)
	if cards, withdrawn := w.run(t); len(cards)+len(withdrawn) != 0 {
		t.Fatalf("after the answer, later: %+v %+v", cards, withdrawn)
	}
}

// TestAnAnswerInTimeMakesNoCard: answered within the three days, and a
// note to self, never become a card; an answer from someone the mail did
// not go to does not count.
func TestAnAnswerInTimeMakesNoCard(t *testing.T) {
	w := newAwaitWorld(t, &memAwait{})
	w.run(t)
	w.deliver(t, draftSent, "SENT")
	w.deliver(t, "From: Ann <ann@example.com>\nTo: ann@example.com\nSubject: Remember the milk\n\nMilk.\n", "SENT")
	other := w.deliver(t, strings.Replace(strings.Replace(draftSent, "draft-1@", "draft-2@", 1), "Contract draft", "Budget", 1), "SENT")
	w.run(t)
	w.advance(24 * time.Hour)
	w.deliver(t, draftAnswer)
	// Someone else writes into the budget thread: still no answer from
	// Ana there.
	w.deliver(t, strings.NewReplacer("Ana Lima <ana@partner.example>", "Bob <bob@partner.example>",
		"draft-1@", "draft-2@", "Contract draft", "Budget").Replace(draftAnswer))
	w.run(t)
	w.advance(3 * 24 * time.Hour)
	cards, _ := w.run(t)
	if len(cards) != 1 || cards[0].Ref != other || !strings.Contains(cards[0].Meta.Title, "'Budget' since Tuesday") {
		t.Fatalf("cards: %+v", cards)
	}
}

// TestWritingAgainRestartsTheWait: a second mail Ann sends in the thread
// withdraws the card about the first, and the wait starts from it.
func TestWritingAgainRestartsTheWait(t *testing.T) {
	w := newAwaitWorld(t, &memAwait{})
	w.run(t)
	first := w.deliver(t, draftSent, "SENT")
	w.advance(4 * 24 * time.Hour)
	if cards, _ := w.run(t); len(cards) != 1 || cards[0].Ref != first {
		t.Fatalf("first card: %+v", cards)
	}
	second := w.deliver(t, "From: Ann <ann@example.com>\nTo: Ana Lima <ana@partner.example>\nSubject: Re: Contract draft\n"+
		"In-Reply-To: <draft-1@example.com>\nMessage-ID: <draft-1b@example.com>\n\nAny news?\n", "SENT")
	cards, withdrawn := w.run(t)
	if len(cards) != 0 || len(withdrawn) != 1 || withdrawn[0].Ref != first || !strings.Contains(withdrawn[0].Withdraw, "you wrote again") {
		t.Fatalf("after writing again: %+v %+v", cards, withdrawn)
	}
	w.advance(3 * 24 * time.Hour)
	cards, _ = w.run(t)
	if len(cards) != 1 || cards[0].Ref != second || !strings.Contains(cards[0].Meta.Title, "since Saturday") {
		t.Fatalf("second card: %+v", cards)
	}
}

// TestAFailedPageStoresNothing: when the engine could not record the
// page, the wait is not moved on: the next sync makes the same card.
func TestAFailedPageStoresNothing(t *testing.T) {
	store := &memAwait{}
	w := newAwaitWorld(t, store)
	w.run(t)
	sent := w.deliver(t, draftSent, "SENT")
	w.advance(4 * 24 * time.Hour)
	err := w.conn.ListNew(context.Background(), func(context.Context, []scouts.ItemRef) error { return context.DeadlineExceeded })
	if err == nil {
		t.Fatal("a failed page: no error")
	}
	if len(store.rows) != 0 {
		t.Fatalf("stored after a failed page: %+v", store.rows)
	}
	cards, _ := w.run(t)
	if len(cards) != 1 || cards[0].Ref != sent {
		t.Fatalf("after the failed page: %+v", cards)
	}
	for _, r := range store.rows {
		if r.State != gmail.AwaitCarded || r.CardRef != sent || slices.ContainsFunc(r.Recipients, func(a triage.Address) bool { return a.Addr == ann }) {
			t.Fatalf("row: %+v", r)
		}
	}
}
