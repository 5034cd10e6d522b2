package localapi

import (
	"net/http"

	"github.com/scouts-hq/scouts/app/apitype"
)

// The graph of scouts (docs/api.md, "Graph of scouts").

func (s *Server) graphRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/graph", s.handleGraph)
}

func (s *Server) handleGraph(w http.ResponseWriter, r *http.Request) {
	g, err := s.core.Graph(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := apitype.Graph{Nodes: []apitype.GraphNode{}, Edges: []apitype.GraphEdge{}, Loops: []string{}}
	for _, n := range g.Nodes {
		out.Nodes = append(out.Nodes, apitype.GraphNode{ID: n.ID, Name: n.Name, Kind: n.Kind, Enabled: n.Enabled, Cycle: n.Cycle})
	}
	for _, e := range g.Edges {
		out.Edges = append(out.Edges, apitype.GraphEdge{From: e.From, To: e.To, Kind: string(e.Kind), Label: e.Label, Cycle: e.Cycle})
		out.Cycle = out.Cycle || e.Cycle
	}
	for _, loop := range g.Loops() {
		out.Loops = append(out.Loops, g.Words(loop))
	}
	writeJSON(w, http.StatusOK, out)
}
