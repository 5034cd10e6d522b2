package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// TestChainOverRealProcesses: chaining scouts through events (issue 20,
// item 3) on a real agent. Drop, a folder scout that creates a task per
// file, is followed by Follow-ups (a chain scout on Drop's
// entity.created, creating too), itself followed by Archive with
// max_depth 1. Two scouts saved into a loop are refused naming it —
// a chain scout made to follow its own follower, and two folder scouts
// each writing where the other watches — and GET /api/v1/graph draws
// the chain without one. Given two files, Follow-ups runs once per Drop
// event (two cards, one chain step deep) and Archive never runs: each
// Follow-ups card's trail says it was refused past its max_depth.
func TestChainOverRealProcesses(t *testing.T) {
	ctx := context.Background()
	home, dataDir := t.TempDir(), t.TempDir()
	for _, d := range []string{"Drop", "A", "B"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	a := startAgent(t, dataDir, home)
	no := false
	dir := filepath.Join(home, "Drop")
	drop, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Drop", Path: dir, Review: &no})
	if err != nil {
		t.Fatal(err)
	}
	chain := func(name, follows, event string, maxDepth int, review bool) apitype.Scout {
		t.Helper()
		cfg := fmt.Sprintf(`{"on":{"scout":%q,"event":%q}`, follows, event)
		if maxDepth > 0 {
			cfg += fmt.Sprintf(`,"max_depth":%d`, maxDepth)
		}
		sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "chain", Name: name, Config: []byte(cfg + "}"), Review: &review})
		if err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
		return sc
	}
	follow := chain("Follow-ups", "Drop", "entity.created", 0, false)
	archive := chain("Archive", follow.ID, "entity.created", 1, true)

	// A loop of two chain scouts is refused, naming it.
	p := chain("P", "Follow-ups", "card.approved", 0, true)
	_, err = a.client.PatchScout(ctx, follow.ID, apitype.PatchScout{Config: []byte(`{"on":{"scout":"P","event":"card.approved"}}`)})
	if err == nil || !strings.Contains(err.Error(), "Follow-ups → P → Follow-ups") {
		t.Fatalf("saving Follow-ups to follow P, which follows it: %v, want the loop named", err)
	}
	// So is the same loop through an imported definition.
	doc := fmt.Sprintf(`{"version":1,"id":%q,"kind":"chain","name":"Follow-ups","enabled":true,"review":false,"source":{"on":{"scout":"P","event":"card.approved"}}}`, follow.ID)
	res, err := a.client.ImportDefinitions(ctx, []byte(doc), localclient.ImportOptions{Apply: true})
	if err == nil && !strings.Contains(fmt.Sprint(res), "Follow-ups → P → Follow-ups") {
		t.Fatalf("importing the loop: %+v, want it refused naming the loop", res)
	}
	if err != nil && !strings.Contains(err.Error(), "Follow-ups → P → Follow-ups") {
		t.Fatalf("importing the loop: %v, want the loop named", err)
	}
	if err := a.client.DeleteScout(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	// And two folder scouts each writing where the other watches.
	if _, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "A", Path: filepath.Join(home, "A"),
		WriteScope: &apitype.WriteScope{Folders: &[]string{"~/B/**"}}}); err != nil {
		t.Fatal(err)
	}
	_, err = a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "B", Path: filepath.Join(home, "B"),
		WriteScope: &apitype.WriteScope{Folders: &[]string{"~/A/**"}}})
	if err == nil || !strings.Contains(err.Error(), "B → A → B") {
		t.Fatalf("a folder scout writing into A, which writes into it: %v, want the loop named", err)
	}

	g, err := a.client.Graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	edges := map[string]apitype.GraphEdge{}
	for _, e := range g.Edges {
		edges[e.From+">"+e.To] = e
	}
	if g.Cycle || len(g.Loops) != 0 || len(g.Nodes) != 4 ||
		edges[drop.ID+">"+follow.ID].Kind != "trigger" || edges[follow.ID+">"+archive.ID].Kind != "trigger" {
		t.Fatalf("graph: %+v", g)
	}

	for _, name := range []string{"one.txt", "two.txt"} {
		tmp := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(tmp, []byte("call the bank about "+name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// Each Follow-ups card's trail ends with Archive refused.
	var cards []apitype.Suggestion
	refused := map[string]string{}
	waitOn(t, on(a.changed()), "Archive refused on both Follow-ups cards", func() bool {
		cards = cardsOf(t, a, follow.ID, 2)
		for _, c := range cards {
			trail, _ := a.client.Audit(ctx, c.TraceID)
			for _, e := range trail {
				if e.Type == "chain.refused" {
					refused[c.ID] = e.Summary
				}
			}
		}
		return len(refused) == 2
	}, func() string { return fmt.Sprintf("refusals %v", refused) })
	for _, c := range cards {
		if !strings.Contains(refused[c.ID], "past its max_depth 1") || !strings.Contains(c.Reason, "chain step 1 of at most 3") {
			t.Errorf("Follow-ups card %q (%s): refusal %q", c.Title, c.Reason, refused[c.ID])
		}
	}
	if len(cards) != 2 {
		t.Errorf("Follow-ups has %d cards for two files, want one per Drop event", len(cards))
	}
	if got, _ := a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", ScoutID: archive.ID, Limit: 1000}); len(got) != 0 {
		t.Errorf("Archive ran past its max_depth: %d cards", len(got))
	}
}
