// Package graph is the graph of scouts (docs/definitions.md, "Chaining
// scouts"): which scout's events start which scout (a chain trigger), and
// whose writes land where another watches (a write→watch overlap). A loop
// in it would have scouts feed one another for ever, so a save that makes
// one is refused with the loop named, and the window draws the graph. It
// knows nothing of kinds: app/core says which edges there are.
package graph

import (
	"slices"
	"strings"
)

// EdgeKind is why one scout leads to another.
type EdgeKind string

const (
	// Trigger: the target runs on the source's events (a chain scout).
	Trigger EdgeKind = "trigger"
	// WriteWatch: the source's actions may write where the target
	// watches (a folder its file.move may move files into, inside the
	// folder the other scout reads).
	WriteWatch EdgeKind = "write_watch"
)

// Node is one scout.
type Node struct {
	ID      string
	Name    string
	Kind    string
	Enabled bool
	// Cycle: the scout is on a loop.
	Cycle bool
}

// Edge leads From one scout To another; Label says how in words ("on
// card.approved", "writes ~/Inbox/**").
type Edge struct {
	From, To string
	Kind     EdgeKind
	Label    string
	// Cycle: the edge is on a loop.
	Cycle bool
}

// Graph is the scouts and their edges.
type Graph struct {
	Nodes []Node
	Edges []Edge
}

// MarkCycles sets Cycle on every node and edge that lies on a loop: the
// strongly connected components (Tarjan) of more than one scout, and a
// scout that leads to itself. It reports whether there is any loop.
func (g *Graph) MarkCycles() bool {
	comp := g.components()
	any := false
	for i, e := range g.Edges {
		if comp[e.From] >= 0 && comp[e.From] == comp[e.To] {
			g.Edges[i].Cycle, any = true, true
		}
	}
	on := map[string]bool{}
	for _, e := range g.Edges {
		if e.Cycle {
			on[e.From], on[e.To] = true, true
		}
	}
	for i := range g.Nodes {
		g.Nodes[i].Cycle = on[g.Nodes[i].ID]
	}
	return any
}

// components numbers each scout's strongly connected component (Tarjan's
// algorithm); a scout that is on no loop gets -1.
func (g *Graph) components() map[string]int {
	next := g.successors()
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	comp := map[string]int{}
	n, c := 0, 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range next[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var members []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			members = append(members, w)
			if w == v {
				break
			}
		}
		loop := len(members) > 1 || slices.Contains(next[v], v)
		for _, m := range members {
			comp[m] = -1
			if loop {
				comp[m] = c
			}
		}
		c++
	}
	for _, v := range g.ids() {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return comp
}

// LoopThrough returns a shortest loop through the scout id, as ids from
// id back to id ([A B A]), or nil when id is on none.
func (g *Graph) LoopThrough(id string) []string {
	next := g.successors()
	parent := map[string]string{}
	queue := []string{id}
	seen := map[string]bool{}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range next[v] {
			if w == id {
				path := []string{id}
				for u := v; u != id; u = parent[u] {
					path = append(path, u)
				}
				path = append(path, id)
				slices.Reverse(path)
				return path
			}
			if !seen[w] {
				seen[w], parent[w] = true, v
				queue = append(queue, w)
			}
		}
	}
	return nil
}

// Words names a loop's scouts: "A → B → A".
func (g *Graph) Words(loop []string) string {
	names := map[string]string{}
	for _, n := range g.Nodes {
		names[n.ID] = n.Name
	}
	words := make([]string, len(loop))
	for i, id := range loop {
		words[i] = names[id]
		if words[i] == "" {
			words[i] = id
		}
	}
	return strings.Join(words, " → ")
}

// successors lists each scout's targets once each, in edge order.
func (g *Graph) successors() map[string][]string {
	next := map[string][]string{}
	for _, e := range g.Edges {
		if !slices.Contains(next[e.From], e.To) {
			next[e.From] = append(next[e.From], e.To)
		}
	}
	return next
}

// ids are the scouts, nodes first, then any edge end without a node.
func (g *Graph) ids() []string {
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, n := range g.Nodes {
		add(n.ID)
	}
	for _, e := range g.Edges {
		add(e.From)
		add(e.To)
	}
	return out
}

// Loops returns one loop per group of scouts marked on loops
// (MarkCycles first), each as LoopThrough gives it, until every marked
// scout is on one of them.
func (g *Graph) Loops() [][]string {
	covered := map[string]bool{}
	var out [][]string
	for _, n := range g.Nodes {
		if !n.Cycle || covered[n.ID] {
			continue
		}
		loop := g.LoopThrough(n.ID)
		for _, id := range loop {
			covered[id] = true
		}
		if loop != nil {
			out = append(out, loop)
		}
	}
	return out
}
