package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// hash is the stored hash of one feature of a folder-scout item (the
// harness's engine has salt 0).
func hash(t *testing.T, it learn.Item, g learn.Group) uint64 {
	t.Helper()
	it.Source = string(scouts.KindFolder)
	for _, f := range learn.Extract(it, 0) {
		if f.Group == g {
			return f.Hash
		}
	}
	t.Fatalf("no feature of group %d in %+v", g, it)
	return 0
}

func (h *harness) counts(hashes ...uint64) []learn.Vec {
	h.t.Helper()
	v, err := h.db.LearnCounts(context.Background(), h.scout.ID, hashes)
	if err != nil {
		h.t.Fatal(err)
	}
	return v
}

// TestSpamVerdictSparesTheOtherParticipants: one mail of a thread marked
// as spam teaches spam about its own sender, and nothing about the people
// it was sent to (the thread's other participants); approving such a mail
// still teaches about them; undo and a change of mind stay exact.
func TestSpamVerdictSparesTheOtherParticipants(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	thread := func(ref, sender string) {
		h.src.mu.Lock()
		defer h.src.mu.Unlock()
		h.src.items = append(h.src.items, scouts.ItemRef{Ref: ref})
		h.src.meta[ref] = scouts.ItemMetadata{Title: "Re: plans", Sender: sender, ProposedKind: scouts.EntityNote, Reason: "test",
			Evidence: &scouts.Evidence{Sender: sender, Subject: "Re: plans", Signs: []string{"to-domain:alice.example", "to-domain:bob.example"}}}
	}
	thread("mallory", "mallory@evil.example")
	thread("carol", "carol@friends.example")
	h.start()
	alice := hash(t, learn.Item{Signs: []string{"to-domain:alice.example"}}, learn.GroupSign)
	mallory := hash(t, learn.Item{Sender: "mallory@evil.example"}, learn.GroupSender)

	m := h.byRef("mallory")
	if _, err := h.engine.MarkSpam(ctx, m.ID, "user"); err != nil {
		t.Fatal(err)
	}
	c := h.counts(alice, mallory)
	if c[1][learn.CSpam] <= 0 {
		t.Fatalf("the sender was not taught spam: %v", c[1])
	}
	if !c[0].IsZero() {
		t.Fatalf("marking one mail of the thread as spam taught about a participant: %v", c[0])
	}
	// Undone, then approved: the participants learn that, and nothing
	// is left of the spam.
	if _, err := h.engine.Undo(ctx, m.ID, "user"); err != nil {
		t.Fatal(err)
	}
	if c := h.counts(alice, mallory); !c[0].IsZero() || !c[1].IsZero() {
		t.Fatalf("undo left counts: %v", c)
	}
	if _, _, err := h.engine.Approve(ctx, h.byRef("carol").ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatal(err)
	}
	if c := h.counts(alice); c[0][learn.CApprove] <= 0 || c[0][learn.CSpam] != 0 {
		t.Fatalf("an approval did not teach about the participants: %v", c[0])
	}
	st := h.learnState()
	if st.Decisions != 1 || st.Spam != 0 || st.Ham != 1 {
		t.Fatalf("learner: %d decisions, %d spam, %d ham", st.Decisions, st.Spam, st.Ham)
	}
}

// TestMailSentToASenderTeachesWanted: writing to a sender (a reply in
// Gmail's sent mail) teaches the learner that their mail is wanted and
// moves their pending cards out of Screened and Spam to the inbox, taking
// back what silence had taught of them; it happens once per sender.
func TestMailSentToASenderTeachesWanted(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.addLaned("spam", "Bob <bob@partner.example>", scouts.LaneSpam)
	h.addLaned("screened", "bob@partner.example", scouts.LaneScreened)
	h.addLaned("other", "eve@partner.example", scouts.LaneSpam)
	h.start()
	if n, err := h.engine.SettleSilent(ctx, h.later(8*24*time.Hour)); err != nil || n != 3 {
		t.Fatalf("settled %d (%v)", n, err)
	}
	bob := hash(t, learn.Item{Sender: "bob@partner.example"}, learn.GroupSender)
	n, err := h.engine.SentTo(ctx, h.scout, []string{"Bob <BOB@partner.example>"})
	if err != nil || n != 2 {
		t.Fatalf("sent to bob: %d cards moved (%v), want 2", n, err)
	}
	for _, ref := range []string{"spam", "screened"} {
		if s := h.byRef(ref); s.Lane != scouts.LaneInbox || s.Status != scouts.StatusPending {
			t.Fatalf("%s card of bob: %s in %s", ref, s.Status, s.Lane)
		}
	}
	if s := h.byRef("other"); s.Lane != scouts.LaneSpam {
		t.Fatalf("another sender's card moved: %s", s.Lane)
	}
	c := h.counts(bob)[0]
	if c[learn.CApprove] <= 0 || c[learn.CHam] <= 0 || c[learn.CSpam] > 1e-6 || c[learn.CReject] > 1e-6 {
		t.Fatalf("bob's counts: %v; want wanted and not spam, and silence's lessons on his cards taken back", c)
	}
	st := h.learnState()
	if st.Spam != 1 || st.Decisions != 2 {
		t.Fatalf("learner: %d decisions, %d spam; want eve's silent spam and bob's reply", st.Decisions, st.Spam)
	}
	if n, err := h.engine.SentTo(ctx, h.scout, []string{"bob@partner.example"}); err != nil || n != 0 {
		t.Fatalf("a second mail to bob: %d (%v)", n, err)
	}
	if again := h.learnState(); again.Decisions != st.Decisions || !closeTotals(again, st) {
		t.Fatalf("a second mail to bob taught again: %v vs %v", again.Model.Totals.Docs, st.Model.Totals.Docs)
	}
}
