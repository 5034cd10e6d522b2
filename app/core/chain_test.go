package core_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// An approval committed while no chain loop ran (the agent died between
// the decision's commit and the chain scout's item) is not lost: the next
// start makes its item.
func TestAChainEventMissedWhileTheAgentWasDownIsCaughtUp(t *testing.T) {
	ctx := context.Background()
	cfg := core.Config{DataDir: t.TempDir()}
	docs := t.TempDir()

	// First run: a folder scout, a chain scout on its approvals, one card.
	c, sub := openCoreWith(t, cfg)
	a := folderScout(t, c, docs, scouts.Budget{})
	src, _ := json.Marshal(map[string]any{"on": map[string]string{"scout": a.ID, "event": core.ChainCardApproved}})
	b, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindChain, Name: "Follow-ups", Review: true, Enabled: true, Config: src})
	if err != nil {
		t.Fatal(err)
	}
	dropFile(t, docs, "invoice.txt", "Pay the ACME invoice")
	card := waitFor(t, sub, "the folder card", suggestedPath("invoice.txt")).Data.(scouts.Suggestion)
	c.Close()

	// The approval is committed by a core whose loops never started: its
	// announcement reaches no chain scout, as when the agent dies at once.
	down, err := core.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := down.Engine.Approve(ctx, card.ID, engine.Approval{As: scouts.EntityTask}); err != nil {
		t.Fatal(err)
	}
	chained := func(c *core.Core) []scouts.Suggestion {
		list, err := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: b.Scout.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	if n := len(chained(down)); n != 0 {
		t.Fatalf("%d chain items before the restart", n)
	}
	down.Close()

	// The next start catches up.
	c, sub = openCoreWith(t, cfg)
	item := waitFor(t, sub, "the chain scout's item", func(e scouts.Event) bool {
		s, ok := e.Data.(scouts.Suggestion)
		return e.Type == scouts.EventSuggestionCreated && ok && s.ScoutID == b.Scout.ID
	}).Data.(scouts.Suggestion)
	if item.Title != card.Title {
		t.Fatalf("chain item %+v, want one of %q", item, card.Title)
	}
}
