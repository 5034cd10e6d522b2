package apitype

// Graph is the graph of scouts (GET /api/v1/graph): each scout, and an
// edge wherever one scout leads to another — a chain scout runs on the
// other's events (kind trigger), or a folder scout may move files into a
// folder another watches (kind write_watch). Cycle is set on every node
// and edge on a loop; Loops names each loop, "A → B → A".
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
	Cycle bool        `json:"cycle"`
	Loops []string    `json:"loops"`
}

// GraphNode is one scout of the graph.
type GraphNode struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Enabled bool   `json:"enabled"`
	Cycle   bool   `json:"cycle"`
}

// GraphEdge leads from one scout to another. Kind: trigger or
// write_watch; Label says how ("on card.approved").
type GraphEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	Cycle bool   `json:"cycle"`
}
