package core_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
)

// TestRulesReadAgentProposals: a person writes rules against an AI agent's
// proposals — the client's name, the kind proposed, the title, the action
// it comes with — and they apply to the agent's cards like any scout's.
func TestRulesReadAgentProposals(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	first, _, err := c.ProposeFromAgent(ctx, core.AgentProposal{Client: "coder", Title: "Read the changelog"})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		`{"id":"no-drops","when":{"client":{"equals":"Coder"},"kind":{"equals":"task"},"title":{"contains_word":"drop"}},"then":{"verdict":"spam"}}`,
		`{"id":"hooks","when":{"action":{"equals":"webhook.post"}},"then":{"verdict":"show","kind":"note"}}`,
		`{"id":"ci","when":{"url":{"starts_with":"https://ci.example.com/"},"body":{"contains":"green"}},"then":{"verdict":"show","kind":"project"}}`,
	} {
		if _, err := c.Rules().Add(ctx, first.ScoutID, []byte(doc), -1); err != nil {
			t.Fatalf("a rule on an agent scout: %v\n%s", err, doc)
		}
	}
	// A host of this machine: the agent's scout has the default write
	// scope, and its proposals are checked against it.
	params, _ := json.Marshal(map[string]any{"url": "https://localhost/x"})
	for _, tc := range []struct {
		p        core.AgentProposal
		lane     scouts.Lane
		kind     scouts.EntityKind
		scenario string
	}{
		{p: core.AgentProposal{Client: "coder", Title: "Drop the staging tables"}, lane: scouts.LaneSpam, kind: scouts.EntityTask, scenario: "client, kind and title match"},
		{p: core.AgentProposal{Client: "coder", Kind: scouts.EntityNote, Title: "Drop the staging tables"}, lane: scouts.LaneInbox, kind: scouts.EntityNote, scenario: "a note: the kind differs"},
		{p: core.AgentProposal{Client: "coder", Title: "Post the release", Action: "webhook.post", Params: params}, lane: scouts.LaneInbox, kind: scouts.EntityNote, scenario: "the action matches"},
		{p: core.AgentProposal{Client: "coder", Title: "Release 2.4", URL: "https://ci.example.com/run/9", Body: "all green"}, lane: scouts.LaneInbox, kind: scouts.EntityProject, scenario: "url and body match"},
		{p: core.AgentProposal{Client: "reviewer", Title: "Drop the old branch"}, lane: scouts.LaneInbox, kind: scouts.EntityTask, scenario: "another client has its own scout, without the rules"},
	} {
		sg, created, err := c.ProposeFromAgent(ctx, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.scenario, err)
		}
		if !created {
			t.Fatalf("%s: no new card", tc.scenario)
		}
		if sg.Lane != tc.lane || sg.ProposedKind != tc.kind {
			t.Errorf("%s: card in lane %q proposing %q, want %q proposing %q", tc.scenario, sg.Lane, sg.ProposedKind, tc.lane, tc.kind)
		}
	}
}
