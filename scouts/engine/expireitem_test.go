package engine_test

import (
	"context"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
)

// An item its source says expired (the relay kept it too long) shows as an
// expired card, announced; one that never arrived becomes an expired card
// saying what was lost; a card already decided stays decided.
func TestExpireItem(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, true)
	meta := func(title string) *scouts.ItemMetadata {
		return &scouts.ItemMetadata{Title: title, ProposedKind: scouts.EntityTask, Reason: "test"}
	}
	if _, err := h.engine.Ingest(ctx, h.scout, []scouts.ItemRef{{Ref: "a", Meta: meta("Arrived")}, {Ref: "c", Meta: meta("Decided")}}); err != nil {
		t.Fatal(err)
	}
	lost := func(ref string) scouts.ItemRef { return scouts.ItemRef{Ref: ref, Meta: meta("Lost to time")} }

	got, changed, err := h.engine.ExpireItem(ctx, h.scout, lost("a"), "Expired at the source")
	if err != nil || !changed || got.Status != scouts.StatusExpired || got.Title != "Arrived" {
		t.Fatalf("expiring a pending card: %+v changed=%v %v", got, changed, err)
	}
	if ev := h.waitResolved("a"); ev.Status != scouts.StatusExpired {
		t.Fatalf("announced %+v", ev)
	}

	got, changed, err = h.engine.ExpireItem(ctx, h.scout, lost("b"), "Expired at the source")
	if err != nil || !changed || got.Status != scouts.StatusExpired || got.Title != "Lost to time" {
		t.Fatalf("expiring an item that never arrived: %+v changed=%v %v", got, changed, err)
	}
	h.waitResolved("b")

	c, err := h.db.SuggestionByRef(ctx, h.scout.ID, "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.Reject(ctx, c.ID, "test"); err != nil {
		t.Fatal(err)
	}
	got, changed, err = h.engine.ExpireItem(ctx, h.scout, lost("c"), "Expired at the source")
	if err != nil || changed || got.Status != scouts.StatusRejected {
		t.Fatalf("expiring a decided card: %+v changed=%v %v", got, changed, err)
	}
}

// waitResolved returns the suggestion.resolved event of ref's card among
// the events already emitted (the engine emits before it returns).
func (h *harness) waitResolved(ref string) scouts.Suggestion {
	h.t.Helper()
	for {
		select {
		case e := <-h.events:
			if s, ok := e.Data.(scouts.Suggestion); ok && e.Type == scouts.EventSuggestionResolved && s.SourceRef == ref {
				return s
			}
		default:
			h.t.Fatalf("no suggestion.resolved event for %s", ref)
		}
	}
}
