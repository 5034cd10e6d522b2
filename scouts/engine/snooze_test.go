package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// A card the person snoozed stays snoozed when they write to its sender:
// mail sent lifts cards out of Screened and Spam, not out of a snooze
// the person chose.
func TestMailSentToASenderLeavesItsSnoozedCardSnoozed(t *testing.T) {
	h := newHarness(t, true)
	ctx := context.Background()
	h.addLaned("later", "bob@partner.example", scouts.LaneScreened)
	h.start()
	s := h.byRef("later")
	until := time.Now().Add(24 * time.Hour)
	if _, err := h.db.SnoozeSuggestion(ctx, s.ID, until, time.Now(), func(scouts.Suggestion) []scouts.AuditEvent { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.SentTo(ctx, h.scout, []string{"bob@partner.example"}); err != nil {
		t.Fatal(err)
	}
	if got := h.byRef("later"); got.Lane != scouts.LaneSnoozed {
		t.Fatalf("the snoozed card of bob is in %s after a mail to bob", got.Lane)
	}
}
