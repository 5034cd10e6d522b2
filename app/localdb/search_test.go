package localdb_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

type searchFixture struct {
	db          *localdb.DB
	work, home  scouts.Scout
	invoice     scouts.Suggestion // work, inbox, pending, from Ana
	newsletter  scouts.Suggestion // home, spam, pending
	decided     scouts.Suggestion // work, approved as a task
	task        scouts.Entity     // made from decided
	note, event scouts.Entity     // by hand
}

func newSearchFixture(t *testing.T) searchFixture {
	t.Helper()
	ctx := context.Background()
	db := openTempDB(t)
	day := func(d int) time.Time { return time.Date(2026, 5, d, 10, 0, 0, 0, time.UTC) }
	f := searchFixture{db: db}
	mk := func(name string) scouts.Scout {
		sc := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindGmail, Name: name, Enabled: true, Review: true, CreatedAt: day(1), UpdatedAt: day(1)}
		if err := db.CreateScout(ctx, sc); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	f.work, f.home = mk("Work mail"), mk("Home")
	sug := func(sc scouts.Scout, ref, title, excerpt, sender string, lane scouts.Lane, at time.Time) scouts.Suggestion {
		return scouts.Suggestion{ID: scouts.NewID("sg"), ScoutID: sc.ID, SourceType: scouts.KindGmail, SourceRef: ref, TraceID: scouts.NewID("tr"),
			Title: title, Excerpt: excerpt, Sender: sender, ProposedKind: scouts.EntityTask, Status: scouts.StatusPending,
			CreatedAt: at, ExpiresAt: at.Add(90 * 24 * time.Hour), Lane: lane}
	}
	f.invoice = sug(f.work, "m1", "Invoice 2231 for the Lisbon workshop", "Please find attached the invoice", "Ana Sousa <ana@example.com>", scouts.LaneInbox, day(3))
	f.newsletter = sug(f.home, "m2", "Weekly deals: 50% off", "Unsubscribe any time", "Deals <deals@shop.example>", scouts.LaneSpam, day(5))
	f.decided = sug(f.work, "m3", "Contract draft review", "Could you review the contract draft", "Bob <bob@example.org>", scouts.LaneInbox, day(7))
	if _, err := db.RecordItems(ctx, []engine.ItemRecord{{Suggestion: f.invoice}, {Suggestion: f.newsletter}, {Suggestion: f.decided}}, nil); err != nil {
		t.Fatal(err)
	}
	var err error
	f.decided, f.task, _, err = db.ApproveSuggestion(ctx, f.decided.ID, scouts.EntityTask, "user", day(8),
		func(s scouts.Suggestion, _ []engine.ActionRun) (engine.ApprovalRecord, error) {
			return engine.ApprovalRecord{Entity: scouts.Entity{ID: scouts.NewID("tk"), Kind: scouts.EntityTask, Title: "Review the contract",
				Body: "Clause 7 needs a second look", SourceSuggestionID: s.ID, CreatedAt: day(8), UpdatedAt: day(8)}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	f.note = scouts.Entity{ID: scouts.NewID("nt"), Kind: scouts.EntityNote, Title: "Lisbon hotels", Body: "Bairro Alto is loud at night", CreatedAt: day(9), UpdatedAt: day(9)}
	f.event = scouts.Entity{ID: scouts.NewID("ev"), Kind: scouts.EntityEvent, Title: "Workshop in Lisbon", Location: "Rua Augusta 12",
		StartsAt: day(20), EndsAt: day(20).Add(3 * time.Hour), CreatedAt: day(2), UpdatedAt: day(2)}
	for _, e := range []scouts.Entity{f.note, f.event} {
		if err := db.CreateEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f searchFixture) ids(t *testing.T, q string) []string {
	t.Helper()
	sq, err := localdb.ParseSearch(q, time.UTC)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	hits, err := f.db.Search(context.Background(), sq, 0)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Type+":"+h.ID)
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Words find cards of every lane and status and entities, as prefixes,
// the title first; filters narrow by sender, type, lane, scout, dates and
// state.
func TestSearchWordsAndFilters(t *testing.T) {
	f := newSearchFixture(t)
	card := func(s scouts.Suggestion) string { return "card:" + s.ID }
	ent := func(e scouts.Entity) string { return string(e.Kind) + ":" + e.ID }
	cases := []struct {
		q    string
		want []string
	}{
		{"lisbon", []string{card(f.invoice), ent(f.note), ent(f.event)}},
		{"lisb", []string{card(f.invoice), ent(f.note), ent(f.event)}},       // prefix
		{"LISBÓN", []string{card(f.invoice), ent(f.note), ent(f.event)}},     // case and accents
		{"contract", []string{card(f.decided), ent(f.task)}},                 // a decided card and its task
		{"augusta", []string{ent(f.event)}},                                  // an event's location
		{"deals", []string{card(f.newsletter)}},                              // a card in Spam
		{"lisbon -hotels", []string{card(f.invoice), ent(f.event)}},          // left out
		{`"lisbon workshop"`, []string{card(f.invoice)}},                     // a phrase
		{"from:ana", []string{card(f.invoice)}},                              // sender
		{"from:ana@example.com", []string{card(f.invoice)}},                  // address
		{"from:bob", []string{card(f.decided), ent(f.task)}},                 // a task made from Bob's mail
		{"lisbon kind:note", []string{ent(f.note)}},                          // type
		{"lisbon kind:note kind:event", []string{ent(f.note), ent(f.event)}}, // types
		{"lane:spam", []string{card(f.newsletter)}},                          // filters alone
		{"is:pending", []string{card(f.invoice), card(f.newsletter)}},
		{"is:approved contract", []string{card(f.decided)}},
		{"is:open", []string{ent(f.task)}},
		{`scout:"work mail"`, []string{card(f.invoice), card(f.decided), ent(f.task)}},
		{"scout:home", []string{card(f.newsletter)}},
		{"lisbon after:2026-05-03 before:2026-05-10", []string{card(f.invoice), ent(f.note)}},
		{"lisbon after:2026-05-19", []string{ent(f.event)}}, // an event's date is its start
		{"kind:task lane:spam", nil},                        // lane: applies to cards only
		{"nowhere", nil},
	}
	for _, c := range cases {
		if got := f.ids(t, c.q); !sameSet(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.q, got, c.want)
		}
	}
	// The title weighs most: the card with the word in its title and
	// excerpt comes before the task with it in its title alone.
	ranked := f.ids(t, "contract")
	if ranked[0] != card(f.decided) {
		t.Errorf("contract: %v, want the card titled \"Contract draft review\" (title and excerpt) first", ranked)
	}
}

// The index follows every write in its transaction: an entity renamed is
// found by its new name and no longer by its old one, a deleted one is
// gone, and undoing an approval removes the task it made.
func TestSearchFollowsWrites(t *testing.T) {
	ctx := context.Background()
	f := newSearchFixture(t)
	title := "Porto hotels"
	if _, err := f.db.UpdateEntity(ctx, scouts.EntityNote, f.note.ID, scouts.EntityPatch{Title: &title}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := f.ids(t, "porto"); len(got) != 1 {
		t.Errorf("porto after the rename: %v", got)
	}
	if got := f.ids(t, "hotels kind:note"); len(got) != 1 {
		t.Errorf("hotels after the rename: %v", got)
	}
	if err := f.db.DeleteEntity(ctx, scouts.EntityNote, f.note.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.ids(t, "porto"); len(got) != 0 {
		t.Errorf("porto after the delete: %v", got)
	}
	if _, _, err := f.db.UndoDecision(ctx, f.decided.ID, func(scouts.Suggestion) error { return nil },
		func(engine.UndoState) engine.UndoRecord { return engine.UndoRecord{} }); err != nil {
		t.Fatal(err)
	}
	if got := f.ids(t, "clause"); len(got) != 0 {
		t.Errorf("the undone task's body is still found: %v", got)
	}
	if got := f.ids(t, "contract is:pending"); len(got) != 1 || got[0] != "card:"+f.decided.ID {
		t.Errorf("the card back to pending: %v", got)
	}
}

// A filter that cannot be understood is refused with words that say why;
// "Re:" is a word.
func TestSearchRefusesBadFilters(t *testing.T) {
	f := newSearchFixture(t)
	for q, want := range map[string]string{
		"lane:archive":                       "lane:archive is not a lane",
		"kind:email2":                        "kind:email2 is not a kind",
		"is:snoozed":                         "is:snoozed is not a state",
		"before:yesterday":                   "before:yesterday is not a date",
		"colour:red":                         "unknown filter colour:",
		"from:":                              "from: needs a value",
		"-lisbon":                            "cannot only leave words out",
		"":                                   "nothing to search for",
		"after:2026-06-01 before:2026-05-01": "is not before",
	} {
		_, err := localdb.ParseSearch(q, time.UTC)
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an invalid error saying %q", q, err, want)
		}
	}
	sq, err := localdb.ParseSearch("scout:nobody", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Search(context.Background(), sq, 0); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "names no scout") {
		t.Errorf("scout:nobody: %v", err)
	}
	if got := f.ids(t, "Re: contract"); len(got) != 2 {
		t.Errorf("Re: contract: %v", got)
	}
}
