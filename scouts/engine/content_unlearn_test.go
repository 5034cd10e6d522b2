package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/scouts-hq/scouts/scouts/learn"
)

// TestContentModelUnlearnsExactly: the content spam model cannot subtract
// a decision, so the store trains it again from the stored examples when
// one is undone. After marking a card as spam and undoing it, the scout's
// content model is bit for bit the model of a second installation that
// made the same other decisions and never that one; before the undo it
// is not. Both read the model after every decision, so the second one
// follows its examples one by one across a settling point
// (learn.Settled), where the store must train it again as the undo does.
func TestContentModelUnlearnsExactly(t *testing.T) {
	ctx := context.Background()
	// read brings the scout's content model up to date, as a prediction
	// does.
	read := func(h *harness) {
		t.Helper()
		if _, err := h.db.LearnState(ctx, h.scout.ID); err != nil {
			t.Fatal(err)
		}
	}
	decide := func(h *harness, spamX bool) {
		t.Helper()
		h.start()
		for i := range 30 {
			h.addMail(fmt.Sprintf("s%02d", i), fmt.Sprintf("promo%d@offers.example", i), fmt.Sprintf("Cheap pills offer %d", i), "buy cheap pills now, best price online")
			h.addMail(fmt.Sprintf("h%02d", i), "colleague@work.example", fmt.Sprintf("Minutes of meeting %d", i), "the minutes of the meeting are attached")
		}
		h.addMail("x", "lottery@win.example", "You won the lottery", "claim your lottery prize today")
		if err := h.run(); err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			if _, err := h.engine.MarkSpam(ctx, h.byRef(fmt.Sprintf("s%02d", i)).ID, "user"); err != nil {
				t.Fatal(err)
			}
			read(h)
			if _, err := h.engine.Reject(ctx, h.byRef(fmt.Sprintf("h%02d", i)).ID, "user"); err != nil {
				t.Fatal(err)
			}
			read(h)
		}
		if spamX {
			if _, err := h.engine.MarkSpam(ctx, h.byRef("x").ID, "user"); err != nil {
				t.Fatal(err)
			}
		}
	}
	content := func(h *harness) *learn.Content {
		t.Helper()
		st, err := h.db.LearnState(ctx, h.scout.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st.Model.Content == nil || !st.Model.Content.Ready() {
			t.Fatalf("no content model after %d decisions", st.Decisions)
		}
		return st.Model.Content
	}

	never := newHarness(t, true)
	decide(never, false)
	want := content(never)

	h := newHarness(t, true)
	decide(h, true)
	if content(h).Equal(want) {
		t.Fatal("marking the card as spam taught the content model nothing: the test proves nothing")
	}
	if _, err := h.engine.Undo(ctx, h.byRef("x").ID, "user"); err != nil {
		t.Fatal(err)
	}
	if !content(h).Equal(want) {
		t.Fatal("after the undo the content model differs from one that never learned the decision")
	}
}
