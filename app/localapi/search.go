package localapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

func (s *Server) searchRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/search", s.handleSearch)
}

// handleSearch answers GET /api/v1/search?q=…[&limit=N]; a query or
// filter it cannot read is a 400 that says why.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	limit := 0
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			s.fail(w, r, scouts.Errorf(scouts.EInvalid, "limit=%q: want a number from 1 to 200", l))
			return
		}
		limit = n
	}
	sq, err := localdb.ParseSearch(q, time.Local)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	hits, err := s.core.DB.Search(r.Context(), sq, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := apitype.SearchResults{Query: q, Results: make([]apitype.SearchHit, 0, len(hits))}
	for _, h := range hits {
		out.Results = append(out.Results, apitype.SearchHit{Type: h.Type, ID: h.ID, Title: h.Title, Snippet: h.Snippet,
			Sender: h.Sender, ScoutID: h.ScoutID, Scout: h.ScoutName, Lane: string(h.Lane), Status: string(h.Status),
			ProposedKind: string(h.ProposedKind), Done: h.Done, At: h.At.UTC()})
	}
	writeJSON(w, http.StatusOK, out)
}
