package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// addMail adds an item from sender with a title and body.
func (h *harness) addMail(ref, sender, title, body string) {
	h.addListMail(ref, sender, "", title, body)
}

// addListMail is addMail through a mailing list (none for ""): the
// source's evidence names the list, as Gmail's List-Id does.
func (h *harness) addListMail(ref, sender, list, title, body string) {
	h.src.mu.Lock()
	defer h.src.mu.Unlock()
	h.src.items = append(h.src.items, scouts.ItemRef{Ref: ref})
	m := scouts.ItemMetadata{Title: title, Sender: sender, Excerpt: body, ProposedKind: scouts.EntityNote, Reason: "test"}
	if list != "" {
		m.Evidence = &scouts.Evidence{Sender: sender, ListID: list, Subject: title, Body: body}
	}
	h.src.meta[ref] = m
}

func (h *harness) byRef(ref string) scouts.Suggestion {
	h.t.Helper()
	s, err := h.db.SuggestionByRef(context.Background(), h.scout.ID, ref)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// TestLearnerScreensWhatThePersonRejects: after enough decisions, mail
// like what the person rejected is screened (with the evidence in words),
// mail like what they approved is shown and proposed as the kind they
// chose; bringing a card back teaches the learner, undo unlearns exactly,
// and the model keeps hashes and counts only.
func TestLearnerScreensWhatThePersonRejects(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.start()
	for i := range 20 {
		h.addMail(fmt.Sprintf("n%d", i), "news@lists.example.org", fmt.Sprintf("Weekly digest %d: offers and deals", i), "unsubscribe from this digest of offers")
		h.addMail(fmt.Sprintf("b%d", i), "boss@corp.example", fmt.Sprintf("Please review the budget draft %d", i), "can you review the quarterly budget by Friday")
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for _, s := range h.suggestions(scouts.StatusPending) {
		if s.Lane != scouts.LaneInbox {
			t.Fatalf("before any decision %s is in %s; nothing is screened during the cold start", s.SourceRef, s.Lane)
		}
		if strings.HasPrefix(s.SourceRef, "n") {
			if _, err := h.engine.Reject(ctx, s.ID, "user"); err != nil {
				t.Fatal(err)
			}
		} else if _, _, err := h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := h.db.LearnState(ctx, h.scout.ID)
	if err != nil || st.Decisions != 40 || !st.Trained() {
		t.Fatalf("learner after 40 decisions: %+v, %v", st, err)
	}

	h.addMail("n-new", "news@lists.example.org", "Weekly digest 99: offers and deals", "unsubscribe from this digest of offers")
	h.addMail("b-new", "boss@corp.example", "Please review the budget draft 99", "can you review the quarterly budget by Friday")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	news, boss := h.byRef("n-new"), h.byRef("b-new")
	if news.Lane != scouts.LaneScreened || !strings.Contains(news.Assessment.LaneReason, "rejected 20 from this sender") {
		t.Fatalf("newsletter: lane %s, reason %q, why %q", news.Lane, news.Assessment.LaneReason, news.Assessment.Why)
	}
	if boss.Lane != scouts.LaneInbox || boss.Assessment.Approve < 0.9 || boss.ProposedKind != scouts.EntityTask || boss.Assessment.KindFrom != "learned" {
		t.Fatalf("boss: lane %s, approve %v, kind %s from %s", boss.Lane, boss.Assessment.Approve, boss.ProposedKind, boss.Assessment.KindFrom)
	}
	if !slices.ContainsFunc(boss.Assessment.Why, func(w string) bool { return strings.Contains(w, "approved 20 from this sender") }) {
		t.Fatalf("boss why: %q", boss.Assessment.Why)
	}
	if tr := h.trail(news.TraceID); !slices.Contains(tr, scouts.AuditLaned) {
		t.Fatalf("the screening is not on the trail: %v", tr)
	}

	// Bringing the newsletter back teaches; undoing an approval unlearns.
	counts := func(s scouts.Suggestion) engine.LearnState {
		st, err := h.db.LearnState(ctx, h.scout.ID)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := counts(news)
	back, err := h.engine.BringBack(ctx, news.ID, "user")
	if err != nil || back.Lane != scouts.LaneInbox || back.Rescued != scouts.RescueScreened {
		t.Fatalf("bring back: %+v, %v", back, err)
	}
	if after := counts(news); after.Decisions != before.Decisions+1 || after.Model.Totals.Docs == before.Model.Totals.Docs {
		t.Fatalf("bringing back taught nothing: %d → %d decisions", before.Decisions, after.Decisions)
	}
	if tr := h.trail(news.TraceID); !slices.Contains(tr, scouts.AuditMoved) {
		t.Fatalf("the move is not on the trail: %v", tr)
	}
	mid := counts(boss)
	if _, _, err := h.engine.Approve(ctx, boss.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.Undo(ctx, boss.ID, "user"); err != nil {
		t.Fatal(err)
	}
	if after := counts(boss); after.Decisions != mid.Decisions || !closeTotals(after, mid) {
		t.Fatalf("undo did not unlearn: %+v vs %+v", after.Model.Totals, mid.Model.Totals)
	}

	// Marked as spam: the spam model learns it, undo takes it back.
	sp, err := h.engine.MarkSpam(ctx, boss.ID, "user")
	if err != nil || sp.Lane != scouts.LaneSpam || sp.Status != scouts.StatusRejected {
		t.Fatalf("mark spam: %+v, %v", sp, err)
	}
	if st := counts(boss); st.Spam != 1 {
		t.Fatalf("spam decisions %d, want 1", st.Spam)
	}
	if un, err := h.engine.Undo(ctx, boss.ID, "user"); err != nil || un.Lane != scouts.LaneInbox || counts(boss).Spam != 0 {
		t.Fatalf("undo spam: %+v, %v", un, err)
	}

	// Reset forgets; the next item is not screened.
	if err := h.engine.ResetLearner(ctx, h.scout.ID, "user"); err != nil {
		t.Fatal(err)
	}
	if st := counts(boss); st.Decisions != 0 || st.Trained() {
		t.Fatalf("after reset: %+v", st)
	}
	h.addMail("n-after-reset", "news@lists.example.org", "Weekly digest 100: offers and deals", "unsubscribe from this digest of offers")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if s := h.byRef("n-after-reset"); s.Lane != scouts.LaneInbox {
		t.Fatalf("after reset the newsletter is in %s", s.Lane)
	}
	// The model holds hashes and counts, no words of the items.
	for _, w := range []string{"digest", "budget", "quarterly", "news@lists", "corp.example", "offers"} {
		if h.db.LearnTablesContain(ctx, []byte(w)) {
			t.Fatalf("the learner's tables contain %q", w)
		}
	}
}

func closeTotals(a, b engine.LearnState) bool {
	for i := range a.Model.Totals.Docs {
		d := a.Model.Totals.Docs[i] - b.Model.Totals.Docs[i]
		if d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return true
}

// Approving without edits gives the entity the fields the card proposed
// (a task's due date); an edit still wins; a rejection teaches "not spam".
func TestApprovalTakesTheProposedFields(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	due := time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)
	h.engine = engine.New(engine.Config{
		Store: h.db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Emit:         func(e scouts.Event) { h.events <- e },
		Now:          func() time.Time { return *h.now.Load() },
		PollInterval: time.Hour,
		Learning: engine.LearningConfig{Propose: func(context.Context, scouts.Scout, scouts.ItemMetadata, string) engine.ContentProposal {
			return engine.ContentProposal{Kind: scouts.EntityTask, Due: due, Reasons: []string{"mentions a date: Fri 8 May"}}
		}},
	})
	h.start()
	h.addMail("inv", "billing@acme.example", "Invoice 42", "due Friday")
	h.addMail("inv2", "billing@acme.example", "Invoice 43", "due Friday")
	h.addMail("news", "news@acme.example", "News", "hello")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	inv := h.byRef("inv")
	if inv.ProposedKind != scouts.EntityTask || !strings.Contains(inv.Reason, "now proposed as a task from its content") {
		t.Fatalf("card: kind %s, reason %q", inv.ProposedKind, inv.Reason)
	}
	ent, _, err := h.engine.Approve(ctx, inv.ID, engine.Approval{As: scouts.EntityTask})
	if err != nil || !ent.Due.Equal(due) {
		t.Fatalf("approved without edits: due %v (want %v), %v", ent.Due, due, err)
	}
	other := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	ent, _, err = h.engine.Approve(ctx, h.byRef("inv2").ID, engine.Approval{As: scouts.EntityTask, Edits: scouts.EntityPatch{Due: &other}})
	if err != nil || !ent.Due.Equal(other) {
		t.Fatalf("an edited due date: %v, %v", ent.Due, err)
	}
	if _, err := h.engine.Reject(ctx, h.byRef("news").ID, "user"); err != nil {
		t.Fatal(err)
	}
	if st, _ := h.db.LearnState(ctx, h.scout.ID); st.Ham != 3 || st.Spam != 0 {
		t.Fatalf("two approvals and a rejection: ham %d, spam %d; want 3 and 0", st.Ham, st.Spam)
	}
}

// The counts the learner scores with (kept in memory once read) follow every
// committed decision: they equal what a fresh reading of the database says.
func TestLearnerCountsFollowTheDatabase(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.start()
	for i := range 12 {
		h.addMail(fmt.Sprintf("m%d", i), fmt.Sprintf("s%d@example.org", i%3), fmt.Sprintf("Subject %d about things", i), "words of the body")
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	list := h.suggestions(scouts.StatusPending)
	hashes := learn.Hashes(learn.Extract(learn.Item{Source: "folder", Sender: "s1@example.org", Subject: "Subject 1 about things", Body: "words of the body"}, 0))
	read := func() []learn.Vec {
		v, err := h.db.LearnCounts(ctx, h.scout.ID, hashes)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i, s := range list {
		var err error
		switch i % 3 {
		case 0:
			_, _, err = h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityNote})
		case 1:
			_, err = h.engine.Reject(ctx, s.ID, "user")
		case 2:
			_, err = h.engine.MarkSpam(ctx, s.ID, "user")
		}
		if err != nil {
			t.Fatal(err)
		}
		read() // the cache is loaded early and must follow every decision
		if i == 5 {
			if _, err := h.engine.Undo(ctx, s.ID, "user"); err != nil {
				t.Fatal(err)
			}
		}
	}
	cached := read()
	path := h.db.Path()
	other, err := localdb.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	fresh, err := other.LearnCounts(ctx, h.scout.ID, hashes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cached, fresh) {
		t.Fatalf("cached counts %v differ from the database's %v", cached, fresh)
	}
	nonzero := 0
	for _, v := range fresh {
		if !v.IsZero() {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Fatal("no counts at all: the comparison proves nothing")
	}
}
