package graph

import "testing"

func TestLoopIsNamedAndMarked(t *testing.T) {
	g := Graph{
		Nodes: []Node{{ID: "a", Name: "Invoices"}, {ID: "b", Name: "Follow-ups"}, {ID: "c", Name: "Archive"}, {ID: "d", Name: "Alone"}},
		Edges: []Edge{
			{From: "a", To: "b", Kind: Trigger},
			{From: "b", To: "c", Kind: Trigger},
			{From: "c", To: "a", Kind: WriteWatch},
			{From: "c", To: "d", Kind: Trigger},
		},
	}
	if !g.MarkCycles() {
		t.Fatal("MarkCycles found no loop in a → b → c → a")
	}
	for _, e := range g.Edges {
		if want := e.To != "d"; e.Cycle != want {
			t.Errorf("edge %s→%s: cycle %v, want %v", e.From, e.To, e.Cycle, want)
		}
	}
	if g.Nodes[3].Cycle {
		t.Error("the scout off the loop is marked on it")
	}
	if got, want := g.Words(g.LoopThrough("b")), "Follow-ups → Archive → Invoices → Follow-ups"; got != want {
		t.Errorf("loop through b: %q, want %q", got, want)
	}
	if loop := g.LoopThrough("d"); loop != nil {
		t.Errorf("loop through d: %v, want none", loop)
	}
}

func TestSelfLoopAndChain(t *testing.T) {
	g := Graph{Nodes: []Node{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}}, Edges: []Edge{{From: "a", To: "b"}}}
	if g.MarkCycles() {
		t.Fatal("a chain a → b is not a loop")
	}
	g.Edges = append(g.Edges, Edge{From: "b", To: "b"})
	if !g.MarkCycles() || g.Edges[0].Cycle || !g.Edges[1].Cycle {
		t.Fatalf("b → b: edges %+v", g.Edges)
	}
	if got := g.Words(g.LoopThrough("b")); got != "B → B" {
		t.Errorf("loop through b: %q", got)
	}
}
