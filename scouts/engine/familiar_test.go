package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// TestFamiliarSenderIsScreenedNotFiledAsSpam: mail the learner takes for
// spam goes to Spam while its sender is new; from the sender's
// FamiliarAfter-th earlier mail on (counted across pages and runs, and
// within a page), it is screened instead, saying why — until the person
// marks one of its mails as spam; undoing that makes it familiar again.
func TestFamiliarSenderIsScreenedNotFiledAsSpam(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.start()
	for i := range 16 {
		h.addMail(fmt.Sprintf("s%02d", i), fmt.Sprintf("promo%d@offers.example", i), fmt.Sprintf("Cheap pills offer %d", i), "buy cheap pills now, best price online")
		h.addMail(fmt.Sprintf("h%02d", i), "colleague@work.example", fmt.Sprintf("Minutes of meeting %d", i), "the minutes of the meeting are attached")
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for i := range 16 {
		if _, err := h.engine.MarkSpam(ctx, h.byRef(fmt.Sprintf("s%02d", i)).ID, "user"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.engine.Approve(ctx, h.byRef(fmt.Sprintf("h%02d", i)).ID, engine.Approval{As: scouts.EntityNote}); err != nil {
			t.Fatal(err)
		}
	}
	feed := func(refs ...string) {
		t.Helper()
		for _, ref := range refs {
			h.addMail(ref, "digest@feeds.example", "Daily digest "+ref, "buy cheap pills now, best price online")
		}
		if err := h.run(); err != nil {
			t.Fatal(err)
		}
	}
	lane := func(ref string) scouts.Suggestion {
		t.Helper()
		return h.byRef(ref)
	}
	// One page of four: the first three of a new sender are judged on
	// their content, the fourth is its fourth mail.
	h.src.mu.Lock()
	h.src.pageSize = 10
	h.src.mu.Unlock()
	feed("f1", "f2", "f3", "f4")
	for _, ref := range []string{"f1", "f2", "f3"} {
		if s := lane(ref); s.Lane != scouts.LaneSpam {
			t.Fatalf("%s of a new sender: lane %s (%s), want spam", ref, s.Lane, s.Assessment.LaneReason)
		}
	}
	f4 := lane("f4")
	if f4.Lane != scouts.LaneScreened || !strings.Contains(f4.Assessment.LaneReason, "its sender wrote 3 times before and none of it was taught as spam") {
		t.Fatalf("the sender's fourth mail: lane %s (%q), want screened as familiar", f4.Lane, f4.Assessment.LaneReason)
	}
	// Counted in the store too: a later run.
	feed("f5")
	if s := lane("f5"); s.Lane != scouts.LaneScreened || !strings.Contains(s.Assessment.LaneReason, "wrote 4 times before") {
		t.Fatalf("the sender's fifth mail: lane %s (%q)", s.Lane, s.Assessment.LaneReason)
	}
	// The person says it is spam: the sender is familiar no more.
	if _, err := h.engine.MarkSpam(ctx, f4.ID, "user"); err != nil {
		t.Fatal(err)
	}
	feed("f6")
	if s := lane("f6"); s.Lane != scouts.LaneSpam {
		t.Fatalf("after the person marked the sender's mail as spam: lane %s (%q), want spam", s.Lane, s.Assessment.LaneReason)
	}
	if _, err := h.engine.Undo(ctx, f4.ID, "user"); err != nil {
		t.Fatal(err)
	}
	feed("f7")
	if s := lane("f7"); s.Lane != scouts.LaneScreened {
		t.Fatalf("after the spam mark was undone: lane %s (%q), want screened", s.Lane, s.Assessment.LaneReason)
	}
}

// Mail from a sender that keeps writing, not through a list, waits in
// Screened from its fourth mail while the person answered none of it; an
// answer (here a rejection, then an approval) ends the wait, and list
// mail and folder items never wait this way.
func TestSenderNobodyAnswersWaitsInScreened(t *testing.T) {
	h := trainedOnCorrespondents(t, nil)
	ctx := context.Background()
	arrive := func(sender, list string, refs ...string) {
		t.Helper()
		for _, ref := range refs {
			h.addListMail(ref, sender, list, "News "+ref, "shall we meet for dinner")
		}
		if err := h.run(); err != nil {
			t.Fatal(err)
		}
	}
	lane := func(ref string, want scouts.Lane) scouts.Suggestion {
		t.Helper()
		s := h.byRef(ref)
		if s.Lane != want {
			t.Fatalf("%s: lane %s (%q), want %s", ref, s.Lane, s.Assessment.LaneReason, want)
		}
		return s
	}
	arrive("feed@news.example", "", "f1", "f2", "f3", "f4")
	for _, ref := range []string{"f1", "f2", "f3"} {
		lane(ref, scouts.LaneInbox)
	}
	f4 := lane("f4", scouts.LaneScreened)
	if !f4.Assessment.Unanswered || !strings.Contains(f4.Assessment.LaneReason, "its sender wrote 3 times before and you have answered none of it yet") {
		t.Fatalf("f4: unanswered %v, reason %q", f4.Assessment.Unanswered, f4.Assessment.LaneReason)
	}
	// A reply is a conversation the person is in: never held.
	h.addMail("r1", "feed@news.example", "Re: News f1", "shall we meet for dinner")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	lane("r1", scouts.LaneInbox)
	// Through a list, the same sender's mail is the list's: never held.
	arrive("poster@lists.example", "talk.lists.example", "l1", "l2", "l3", "l4", "l5")
	lane("l5", scouts.LaneInbox)
	// An answer: the person rejects one of the feed's cards. Its later
	// mail is the learner's to judge again — rejected, so screened as
	// unlikely to be approved, and no longer as unanswered.
	if _, err := h.engine.Reject(ctx, h.byRef("f1").ID, "user"); err != nil {
		t.Fatal(err)
	}
	arrive("feed@news.example", "", "f5")
	if s := h.byRef("f5"); s.Assessment.Unanswered {
		t.Fatalf("f5 after a rejection of the sender's mail: still held as unanswered (%q)", s.Assessment.LaneReason)
	}
	// Undo the rejection: unanswered again.
	if _, err := h.engine.Undo(ctx, h.byRef("f1").ID, "user"); err != nil {
		t.Fatal(err)
	}
	arrive("feed@news.example", "", "f6")
	if s := lane("f6", scouts.LaneScreened); !s.Assessment.Unanswered {
		t.Fatalf("f6 after the rejection was undone: %q, want held as unanswered", s.Assessment.LaneReason)
	}
	// A rejection leaves the held cards where they are.
	lane("f4", scouts.LaneScreened)
	// An approval ends it: the sender's held cards come back to the
	// inbox, and its later mail is shown.
	if _, _, err := h.engine.Approve(ctx, h.byRef("f2").ID, engine.Approval{As: scouts.EntityNote}); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"f4", "f6"} {
		if s := lane(ref, scouts.LaneInbox); !s.Assessment.Unanswered {
			t.Fatalf("%s: the assessment no longer says why it was held", ref)
		}
	}
	arrive("feed@news.example", "", "f7")
	lane("f7", scouts.LaneInbox)
}

// Rescuing one held card of a sender nobody answered is an answer: its
// other held cards come back with it, and nobody else's.
func TestRescuingAnUnansweredCardBringsBackItsSender(t *testing.T) {
	h := trainedOnCorrespondents(t, func(h *harness) {
		for i := range 5 {
			h.addMail(fmt.Sprintf("f%d", i), "Feed <feed@news.example>", fmt.Sprintf("News %d", i), "shall we meet for dinner")
			h.addMail(fmt.Sprintf("g%d", i), "other@news.example", fmt.Sprintf("Offers %d", i), "shall we meet for dinner")
		}
	})
	ctx := context.Background()
	// The first five of each arrived before the learner was trained.
	for i := 5; i < 8; i++ {
		h.addMail(fmt.Sprintf("f%d", i), "Feed <feed@news.example>", fmt.Sprintf("News %d", i), "shall we meet for dinner")
		h.addMail(fmt.Sprintf("g%d", i), "other@news.example", fmt.Sprintf("Offers %d", i), "shall we meet for dinner")
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for i := 5; i < 8; i++ {
		for _, ref := range []string{fmt.Sprintf("f%d", i), fmt.Sprintf("g%d", i)} {
			if s := h.byRef(ref); s.Lane != scouts.LaneScreened || !s.Assessment.Unanswered {
				t.Fatalf("%s: lane %s (%q), want held as unanswered", ref, s.Lane, s.Assessment.LaneReason)
			}
		}
	}
	if _, err := h.engine.BringBack(ctx, h.byRef("f5").ID, "user"); err != nil {
		t.Fatal(err)
	}
	for i := 5; i < 8; i++ {
		if s := h.byRef(fmt.Sprintf("f%d", i)); s.Lane != scouts.LaneInbox {
			t.Errorf("f%d: lane %s after the sender's mail was rescued, want inbox", i, s.Lane)
		}
		if s := h.byRef(fmt.Sprintf("g%d", i)); s.Lane != scouts.LaneScreened {
			t.Errorf("g%d: lane %s, want still screened: nobody answered its sender", i, s.Lane)
		}
	}
}

// The learner screens mail as unlikely to be approved only on evidence
// about who sent it: a new list whose mail reads like the rejected one's
// is shown until the person decides some of it; the rejected list's own
// mail is screened.
func TestScreeningNeedsAKnownSender(t *testing.T) {
	h := newHarnessOf(t, true, scouts.KindGmail)
	ctx := context.Background()
	h.start()
	add := h.addListMail
	for i := range 20 {
		add(fmt.Sprintf("r%02d", i), fmt.Sprintf("member%d@chat.example", i), "chat.lists.example", fmt.Sprintf("Thread %d", i), "mailing list discussion someone wrote about the error")
		add(fmt.Sprintf("a%02d", i), "boss@work.example", "", fmt.Sprintf("Budget %d", i), "please review the quarterly budget numbers")
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := h.engine.Reject(ctx, h.byRef(fmt.Sprintf("r%02d", i)).ID, "user"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.engine.Approve(ctx, h.byRef(fmt.Sprintf("a%02d", i)).ID, engine.Approval{As: scouts.EntityTask}); err != nil {
			t.Fatal(err)
		}
	}
	add("known", "member99@chat.example", "chat.lists.example", "Thread 99", "mailing list discussion someone wrote about the error")
	add("new", "dev1@tools.example", "dev.lists.example", "Build question", "mailing list discussion someone wrote about the error")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if s := h.byRef("known"); s.Lane != scouts.LaneScreened {
		t.Fatalf("the rejected list's mail: lane %s (%q), want screened", s.Lane, s.Assessment.LaneReason)
	}
	if s := h.byRef("new"); s.Lane != scouts.LaneInbox || s.Assessment.Approve < 0 || s.Assessment.Approve >= 0.3 {
		t.Fatalf("a new list's mail reading like the rejected list's: lane %s (%q), approve %.3f; want the inbox, with the learner's low probability", s.Lane, s.Assessment.LaneReason, s.Assessment.Approve)
	}
}

// trainedOnCorrespondents is a Gmail scout's harness whose learner is past
// its cold start (30 decisions): a colleague's 20 mails and 20 friends'
// one each, all approved. more adds mail that arrives in the same run,
// before any decision.
func trainedOnCorrespondents(t *testing.T, more func(h *harness)) *harness {
	t.Helper()
	h := newHarnessOf(t, true, scouts.KindGmail)
	ctx := context.Background()
	h.start()
	for i := range 20 {
		h.addMail(fmt.Sprintf("a%02d", i), "colleague@work.example", fmt.Sprintf("Minutes of meeting %d", i), "the minutes of the meeting are attached")
		h.addMail(fmt.Sprintf("b%02d", i), fmt.Sprintf("friend%d@home.example", i), fmt.Sprintf("Dinner on %d", i), "shall we meet for dinner")
	}
	if more != nil {
		more(h)
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		for _, ref := range []string{fmt.Sprintf("a%02d", i), fmt.Sprintf("b%02d", i)} {
			if _, _, err := h.engine.Approve(ctx, h.byRef(ref).ID, engine.Approval{As: scouts.EntityNote}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return h
}
