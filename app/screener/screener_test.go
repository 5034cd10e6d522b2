package screener

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/rulebook"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// world is the screener's surroundings in memory: cards in insertion
// order, a scout's rules, and lane moves that record what they taught.
type world struct {
	cards []scouts.Suggestion
	rules []rulebook.RuleView
	moves []string // "bring-back ID", "screen ID", "reject ID"
}

func (w *world) GetSuggestion(_ context.Context, id string) (scouts.Suggestion, error) {
	for _, c := range w.cards {
		if c.ID == id {
			return c, nil
		}
	}
	return scouts.Suggestion{}, scouts.Errorf(scouts.ENotFound, "no suggestion %s", id)
}

func (w *world) ListSuggestions(_ context.Context, f localdb.SuggestionFilter) ([]scouts.Suggestion, error) {
	var out []scouts.Suggestion
	past := f.After == ""
	for _, c := range w.cards {
		if !past {
			past = c.ID == f.After
			continue
		}
		if (f.ScoutID == "" || c.ScoutID == f.ScoutID) && (f.Status == "" || c.Status == f.Status) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (w *world) List(context.Context, string) ([]rulebook.RuleView, error) { return w.rules, nil }

func (w *world) Add(_ context.Context, _ string, doc []byte, pos int) (rulebook.RuleView, error) {
	var r rules.Rule
	if err := json.Unmarshal(doc, &r); err != nil {
		return rulebook.RuleView{}, err
	}
	v := rulebook.RuleView{Rule: r, Position: pos}
	w.rules = slices.Insert(w.rules, pos, v)
	return v, nil
}

func (w *world) Delete(_ context.Context, _ string, id string) error {
	w.rules = slices.DeleteFunc(w.rules, func(v rulebook.RuleView) bool { return v.Rule.ID == id })
	return nil
}

func (w *world) move(id, what string, f func(*scouts.Suggestion)) (scouts.Suggestion, error) {
	w.moves = append(w.moves, what+" "+id)
	for i := range w.cards {
		if w.cards[i].ID == id {
			f(&w.cards[i])
			return w.cards[i], nil
		}
	}
	return scouts.Suggestion{}, scouts.Errorf(scouts.ENotFound, "no suggestion %s", id)
}

func (w *world) BringBack(_ context.Context, id, _ string) (scouts.Suggestion, error) {
	return w.move(id, "bring-back", func(s *scouts.Suggestion) { s.Rescued, s.Lane = scouts.Rescue(s.Lane), scouts.LaneInbox })
}

func (w *world) Screen(_ context.Context, id, _ string) (scouts.Suggestion, error) {
	return w.move(id, "screen", func(s *scouts.Suggestion) { s.Lane = scouts.LaneScreened })
}

func (w *world) Reject(_ context.Context, id, _ string) (scouts.Suggestion, error) {
	return w.move(id, "reject", func(s *scouts.Suggestion) { s.Status = scouts.StatusRejected })
}

func mail(id, from, list string, lane scouts.Lane) scouts.Suggestion {
	return scouts.Suggestion{ID: id, ScoutID: "sc_1", SourceType: scouts.KindGmail, Sender: from, Status: scouts.StatusPending, Lane: lane,
		Assessment: scouts.Assessment{Lane: lane, ListID: list}}
}

var dec3 = time.Date(2026, 12, 3, 15, 4, 0, 0, time.Local)

func newWorld(cards ...scouts.Suggestion) (*world, *Screener) {
	w := &world{cards: cards}
	return w, New(Config{Store: w, Rules: w, Lanes: w, Now: func() time.Time { return dec3 }})
}

// Always screen: the rule is first and names the sender; every pending
// card from the sender (and only those) is moved to Screened and rejected
// there — the rejection is what teaches — and the card's why line reads
// from the rule's id.
func TestScreenSettlesTheSendersPendingCards(t *testing.T) {
	w, s := newWorld(
		mail("a", "Bob <BOB@example.com>", "", scouts.LaneInbox),
		mail("b", "bob@example.com", "", scouts.LaneSpam),
		mail("c", "carol@example.com", "", scouts.LaneInbox),
		mail("d", "bob@example.com", "", scouts.LaneScreened),
	)
	w.rules = []rulebook.RuleView{{Rule: rules.Rule{ID: "mine"}}}
	res, err := s.Apply(context.Background(), "a", Screen, "user")
	if err != nil {
		t.Fatal(err)
	}
	if w.rules[0].Rule.ID != res.Rule.Rule.ID || res.Key != (Key{OfSender, "bob@example.com"}) {
		t.Fatalf("rules %v, key %v", w.rules, res.Key)
	}
	when, _ := json.Marshal(res.Rule.Rule.When)
	if string(when) != `{"from":{"equals":"bob@example.com"}}` || res.Rule.Rule.Then.Verdict != "screen" {
		t.Fatalf("rule: when %s, then %+v", when, res.Rule.Rule.Then)
	}
	want := []string{"screen a", "reject a", "screen b", "reject b", "reject d"}
	if !slices.Equal(w.moves, want) {
		t.Fatalf("moves %v, want %v", w.moves, want)
	}
	if len(res.Settled) != 3 || res.Settled[0].Status != scouts.StatusRejected || res.Settled[0].Lane != scouts.LaneScreened {
		t.Fatalf("settled %+v", res.Settled)
	}
	i, ok := ParseRuleID(res.Rule.Rule.ID)
	if !ok || i.Why(dec3) != "you screened this sender on 3 Dec" || i.Why(dec3.AddDate(1, 0, 0)) != "you screened this sender on 3 Dec 2026" {
		t.Fatalf("rule id %q: %+v %v", res.Rule.Rule.ID, i, ok)
	}

	// The same key again is refused; the other one replaces the rule.
	if _, err := s.Apply(context.Background(), "c", Screen, "user"); err != nil {
		t.Fatalf("another sender: %v", err)
	}
	w.cards = append(w.cards, mail("e", "bob@example.com", "", scouts.LaneScreened))
	if _, err := s.Apply(context.Background(), "e", Screen, "user"); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("screening bob again: %v, want a conflict", err)
	}
	res, err = s.Apply(context.Background(), "e", Show, "user")
	if err != nil || res.Replaced == "" || len(w.rules) != 3 {
		t.Fatalf("change of mind: %+v, %v, rules %v", res, err, w.rules)
	}
	if got := w.moves[len(w.moves)-1]; got != "bring-back e" {
		t.Fatalf("always show brought back %q", got)
	}
	if i, _ := ParseRuleID(res.Rule.Rule.ID); i.Why(dec3) != "you always show this sender (since 3 Dec)" {
		t.Fatalf("why %q", i.Why(dec3))
	}
}

// A mail from a list is screened by its list; a file by its folder (and
// the folders within it); a webhook card has nothing the rules can name.
func TestKeys(t *testing.T) {
	if k, _ := KeyOf(mail("a", "x@y.example", "Dev.Lists.Example", scouts.LaneInbox)); k != (Key{OfList, "dev.lists.example"}) {
		t.Fatalf("list key %v", k)
	}
	file := func(id, path string) scouts.Suggestion {
		return scouts.Suggestion{ID: id, ScoutID: "sc_1", SourceType: scouts.KindFolder, Path: path, Status: scouts.StatusPending, Lane: scouts.LaneInbox}
	}
	k, _ := KeyOf(file("f", "/home/me/Drop/scans/a.pdf"))
	if k != (Key{OfFolder, "/home/me/Drop/scans/"}) || !k.Covers(file("g", "/home/me/Drop/scans/2026/b.pdf")) || k.Covers(file("h", "/home/me/Drop/other/c.pdf")) {
		t.Fatalf("folder key %v", k)
	}
	_, s := newWorld(scouts.Suggestion{ID: "w", ScoutID: "sc_1", SourceType: scouts.KindWebhook, Sender: "ci", Status: scouts.StatusPending})
	if _, err := s.Apply(context.Background(), "w", Show, "user"); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("webhook card: %v", err)
	}
	if _, err := s.Apply(context.Background(), "nope", Show, "user"); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("missing card: %v", err)
	}
	if _, err := ParseChoice("maybe"); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("choice: %v", err)
	}
}

// The keys are offered on the first card from each sender, decided or
// not, until a screener rule names the sender; cards made later are read
// as they come.
func TestOffers(t *testing.T) {
	w, s := newWorld(
		mail("a", "bob@example.com", "", scouts.LaneInbox),
		mail("b", "bob@example.com", "", scouts.LaneInbox),
		mail("c", "carol@example.com", "", scouts.LaneInbox),
	)
	w.cards[0].Status = scouts.StatusApproved
	ctx := context.Background()
	got, err := s.Offers(ctx, w.cards)
	if err != nil || len(got) != 2 || got["a"].Value != "bob@example.com" || got["c"].Value != "carol@example.com" {
		t.Fatalf("offers %v, %v", got, err)
	}
	w.cards = append(w.cards, mail("d", "dan@example.com", "", scouts.LaneInbox), mail("e", "dan@example.com", "", scouts.LaneInbox))
	if got, _ := s.Offers(ctx, w.cards[3:]); len(got) != 1 || got["d"].Value != "dan@example.com" {
		t.Fatalf("offers on new cards %v", got)
	}
	if _, err := s.Apply(ctx, "d", Show, "user"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Offers(ctx, w.cards); len(got) != 2 || got["d"].Value != "" {
		t.Fatalf("offers once dan has a rule %v", got)
	}
	// A card held in Screened as its sender's unanswered mail offers the
	// keys too, though it is not the sender's first.
	held := mail("f", "bob@example.com", "", scouts.LaneScreened)
	held.Assessment.Unanswered = true
	w.cards = append(w.cards, held)
	if got, _ := s.Offers(ctx, w.cards[5:]); len(got) != 1 || got["f"].Value != "bob@example.com" {
		t.Fatalf("offers on a held card %v", got)
	}
	// Back in the inbox once the person answered the sender: no keys.
	back := mail("g", "bob@example.com", "", scouts.LaneInbox)
	back.Assessment.Unanswered = true
	w.cards = append(w.cards, back)
	if got, _ := s.Offers(ctx, w.cards[6:]); len(got) != 0 {
		t.Fatalf("offers on a card brought back after an answer %v", got)
	}
}
