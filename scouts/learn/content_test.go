package learn

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// A list that carried spam and ham must not send its later ham to Spam on
// its name alone: a new, ordinary message on the list, with words of
// neither class, stays below the spam threshold. With identity weighed ×10
// for spam whatever its purity (the learner before issue 19), it did not.
func TestMixedListDoesNotSendItsHamToSpam(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	list := "<talk.lists.example.org>"
	msg := func(sender, subject, body string) []Feature {
		return Extract(Item{Source: "gmail", Sender: sender, ListID: list, Subject: subject, Body: body}, 7)
	}
	teach := func(p Params) (*Model, MemTable) {
		m := &Model{Params: p, Epoch: now}
		tbl := MemTable{}
		// The person marked few spam, 3 of 12 sent through the list,
		// and kept far more mail, 10 of 300 from the list: by the
		// classes' shares the list leans to spam, by what it carried
		// it is mostly kept mail.
		for i := range 3 {
			train(tbl, m, msg(fmt.Sprintf("spammer%d@bulk.example", i), "cheap pills offer", "buy cheap pills now"), Label{Spam: true}, 1)
		}
		for i := range 9 {
			train(tbl, m, Extract(Item{Source: "gmail", Sender: fmt.Sprintf("x%d@other.example", i), Subject: "win money", Body: "casino bonus winner"}, 7), Label{Spam: true}, 1)
		}
		for i := range 10 {
			train(tbl, m, msg(fmt.Sprintf("member%d@uni.example", i), "meeting notes", fmt.Sprint("agenda minutes thanks ", i)), Label{Ham: true, Reject: true}, 1)
		}
		for i := range 290 {
			train(tbl, m, Extract(Item{Source: "gmail", Sender: fmt.Sprintf("friend%d@home.example", i%30), Subject: "dinner", Body: fmt.Sprint("see you soon ", i)}, 7), Label{Ham: true, Approve: true}, 1)
		}
		return m, tbl
	}
	later := msg("newcomer@fresh.example", "question about the release", "has anyone tried the build")
	flat, tbl := teach(Params{SpamIdentityWeight: 10, FlatIdentity: true})
	p, err := flat.Predict(tbl, later, now)
	if err != nil {
		t.Fatal(err)
	}
	if p.Spam.P < 0.9 {
		t.Fatalf("the flat identity weight no longer sends it to Spam (%.3f): the test does not tell the two apart", p.Spam.P)
	}
	pure, tbl := teach(Params{SpamIdentityWeight: 10})
	p, err = pure.Predict(tbl, later, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("spam probability of the later message: %.3f", p.Spam.P)
	if p.Spam.P >= 0.9 {
		t.Fatalf("a later ordinary message on a list that carried both spam and ham is spam at %.3f", p.Spam.P)
	}
}

// Identity weighs ×IdentityWeight for relevance, and by purity for spam.
func TestClueWeightPerClassAndPurity(t *testing.T) {
	p := Params{SpamIdentityWeight: 5}.withDefaults()
	pure := Clue{Feature: Feature{Group: GroupList}, A: 4, P: 1}
	mixed := Clue{Feature: Feature{Group: GroupList}, A: 2, B: 2, P: 0.5}
	word := Clue{Feature: Feature{Group: GroupBody}, A: 4}
	if w := p.clueWeight(pure, false); w != 10 {
		t.Errorf("relevance weight of a list clue %v, want 10", w)
	}
	if w := p.clueWeight(pure, true); w != 5 {
		t.Errorf("spam weight of a pure list clue %v, want 5", w)
	}
	if w := p.clueWeight(mixed, true); w != 1 {
		t.Errorf("spam weight of an evenly mixed list clue %v, want 1", w)
	}
	if w := p.clueWeight(word, true); w != 1 {
		t.Errorf("weight of a word %v, want 1", w)
	}
	ls := Extract(Item{Source: "gmail", Sender: "a@b.example", ListID: "l.example"}, 1)
	found := false
	for _, f := range ls {
		found = found || (f.Group == GroupListSender && f.Text == "l.example a@b.example")
	}
	if !found {
		t.Fatalf("no sender-within-list feature in %v", ls)
	}
}

// The content model separates a toy set it learned, one pass, online.
func TestContentLearnsSeparableSet(t *testing.T) {
	m := NewContent(0)
	spam := func(i int) []uint32 { return Grams(fmt.Sprintf("buy cheap pills now %d, best offer", i), 3) }
	ham := func(i int) []uint32 { return Grams(fmt.Sprintf("the meeting moved to room %d tomorrow", i), 3) }
	if m.P(spam(0)) != -1 {
		t.Fatal("an empty model claims to know")
	}
	for i := range 20 {
		m.Learn(ContentExample{IDs: spam(i), Spam: true, Weight: 1})
		m.Learn(ContentExample{IDs: ham(i), Weight: 1})
	}
	for i := 100; i < 110; i++ {
		if p := m.P(spam(i)); p < 0.9 {
			t.Errorf("new spam %d at %.3f", i, p)
		}
		if p := m.P(ham(i)); p > 0.1 {
			t.Errorf("new ham %d at %.3f", i, p)
		}
	}
}

// Undoing a decision retrains from the remaining examples in order, and
// gives exactly the model that never saw it.
func TestContentUnlearnsExactly(t *testing.T) {
	var ex []ContentExample
	for i := range 30 {
		ex = append(ex, ContentExample{IDs: Grams(fmt.Sprintf("message %d about %d things", i, i*7), 5), Spam: i%3 == 0, Weight: 1 - float64(i%2)/2})
	}
	undone := 11
	live := NewContent(0)
	for _, e := range ex {
		live.Learn(e)
	}
	rest := append(append([]ContentExample{}, ex[:undone]...), ex[undone+1:]...)
	live.Train(rest)
	never := NewContent(0)
	for _, e := range rest {
		never.Learn(e)
	}
	if !live.Equal(never) {
		t.Fatal("after the undo the model differs from one that never learned the decision")
	}
	// And learning differs from not learning, or the check above proves
	// nothing.
	with := NewContent(0)
	with.Train(ex)
	if with.Equal(never) {
		t.Fatal("learning the decision changed nothing")
	}
}

func TestMixNeedsBothOrFallsBack(t *testing.T) {
	if p := Mix(-1, 0, false, 0.5, 2); p != -1 {
		t.Errorf("neither model: %v", p)
	}
	if p := Mix(0.7, 0, false, 0.5, 2); p != 0.7 {
		t.Errorf("counts alone: %v", p)
	}
	if p := Mix(0.5, 1, true, 0.5, 2); p <= 0.85 {
		t.Errorf("content for spam, counts undecided: %v", p)
	}
}

// The people a mail was sent to never count for spam. Spam lessons leave
// them out (a spam verdict must not teach about a conversation's other
// people), so read by a spam model they were one-sided: the person's own
// domain, on every kept mail and never on a taught spam, said "not spam"
// of any mail sent to it — the later spam of the development groups among
// them, once the collector's spam started reaching its own domain.
func TestParticipantsAreNoSpamClue(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	item := func(subject, body string, to ...string) []Feature {
		var signs []string
		for _, d := range to {
			signs = append(signs, ParticipantSign+d)
		}
		return Extract(Item{Source: "gmail", Sender: "x@" + subject + ".example", Subject: subject, Body: body, Signs: signs}, 7)
	}
	own := func(fs []Feature) []Feature { // what a spam lesson teaches
		var out []Feature
		for _, f := range fs {
			if !f.Participant() {
				out = append(out, f)
			}
		}
		return out
	}
	m := &Model{Epoch: now}
	tbl := MemTable{}
	c := NewContent(0)
	for i := range 20 {
		spam := item(fmt.Sprint("offer", i), "cheap pills casino bonus", "me.example")
		train(tbl, m, own(spam), Label{Spam: true}, 1)
		c.Learn(ContentExample{IDs: ContentIDs(spam), Spam: true, Weight: 1})
		ham := item(fmt.Sprint("notes", i), "agenda minutes for the meeting", "me.example")
		train(tbl, m, ham, Label{Ham: true, Approve: true}, 1)
		c.Learn(ContentExample{IDs: ContentIDs(ham), Weight: 1})
	}
	later := item("newoffer", "cheap pills casino bonus", "me.example")
	p, err := m.Predict(tbl, later, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range p.Spam.Clues {
		if cl.Participant() {
			t.Errorf("spam clue %q (%.3f): the people a mail was sent to decided its spam probability", cl.Text, cl.P)
		}
	}
	if p.Spam.P < 0.9 {
		t.Errorf("spam probability %.3f of spam words sent to the person's own domain; want ≥ 0.9", p.Spam.P)
	}
	z, _ := c.LogitFeatures(later)
	z0, _ := c.LogitFeatures(own(later))
	if z != z0 {
		t.Errorf("content model: %.4f with the recipients, %.4f without; want them ignored", z, z0)
	}
	if ids, ids0 := ContentIDs(later), ContentIDs(own(later)); fmt.Sprint(ids) != fmt.Sprint(ids0) {
		t.Errorf("ContentIDs keeps the recipients: %d ids, %d without", len(ids), len(ids0))
	}
}

// Mail comes in runs: a first week of spam, then weeks of lists. Trained
// on such a run (60 spam, then 140 not), the model still knows new spam
// when it has settled its examples (Settled), where one pass in arrival
// order has forgotten it.
func TestContentRemembersARunOfSpam(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := func(prefix string, pool, n int) []string {
		var out []string
		for range n {
			out = append(out, fmt.Sprintf("%s%d", prefix, rng.IntN(pool)))
		}
		return out
	}
	mail := func(spam bool) []uint32 {
		ws := words("common", 60, 8)
		if spam {
			ws = append(ws, words("offer", 40, 4)...)
		} else {
			ws = append(ws, words("topic", 300, 4)...)
		}
		return Grams(strings.Join(ws, " "), 9)
	}
	var ex []ContentExample
	for i := range 200 {
		ex = append(ex, ContentExample{IDs: mail(i < 60), Spam: i < 60, Weight: 1})
	}
	if k := Settled(ex); k != 200 {
		t.Fatalf("settled %d of 200 examples, want all", k)
	}
	settled, onePass := NewContent(0), NewContent(0)
	settled.Train(ex)
	for _, e := range ex {
		onePass.Learn(e)
	}
	caught := func(m *Content) (spam, ham int) {
		for range 100 {
			if m.P(mail(true)) >= 0.9 {
				spam++
			}
			if m.P(mail(false)) >= 0.9 {
				ham++
			}
		}
		return spam, ham
	}
	s1, h1 := caught(onePass)
	s, h := caught(settled)
	t.Logf("new spam caught: %d of 100 settled, %d after one pass; ham: %d and %d", s, s1, h, h1)
	if s < 90 || h > 0 {
		t.Errorf("settled: %d of 100 new spam at 0.9 or above and %d of 100 ham; want 90 or more and none", s, h)
	}
}

// A model that learns its examples one by one, and trains again from all
// of them where Extends says a settling point is reached, is at every
// step the model Train gives on the same examples.
func TestContentFollowsItsExamplesAcrossSettlingPoints(t *testing.T) {
	var ex []ContentExample
	live := NewContent(0)
	for i := range 120 {
		e := ContentExample{IDs: Grams(fmt.Sprintf("message %d about %d things", i, i*7), 5), Spam: i%3 == 0, Weight: 1 - float64(i%2)/2}
		ex = append(ex, e)
		if live.Extends([]ContentExample{e}) {
			live.Learn(e)
		} else {
			live.Train(ex)
		}
		if i+1 == 50 || i+1 == 71 || i+1 == 100 || i+1 == 120 {
			want := NewContent(0)
			want.Train(ex)
			if !live.Equal(want) {
				t.Fatalf("after %d examples the model learned one by one differs from the one trained on them", i+1)
			}
		}
	}
	if Settled(ex) != 100 {
		t.Fatalf("settled %d of 120 examples, want 100", Settled(ex))
	}
}
