package mcpserve

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The search tool: the local API's search (GET /api/v1/search), read only,
// so that an agent can find what the person already has before it
// proposes it again.

// Hit is one thing a search found, as an agent reads it.
type Hit struct {
	// Type is card, task, note, event or project.
	Type    string `json:"type"`
	ID      string `json:"id"`
	Title   string `json:"title"`
	Snippet string `json:"snippet,omitempty"`
	Sender  string `json:"sender,omitempty"`
	// Scout names the card's scout, or that of the card an entity came from.
	Scout string `json:"scout,omitempty"`
	// Lane, Status and ProposedKind are a card's.
	Lane         string    `json:"lane,omitempty"`
	Status       string    `json:"status,omitempty"`
	ProposedKind string    `json:"proposed_kind,omitempty"`
	Done         bool      `json:"done,omitempty"`
	At           time.Time `json:"at"`
}

// Hits is search's answer.
type Hits struct {
	Query   string `json:"query"`
	Results []Hit  `json:"results"`
}

type searchIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

func (s *server) addSearchTool(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "search",
		Title:       "Search what the person has",
		Description: "Search the person's cards (any lane or status), tasks, notes, events and projects, best match first. Words match titles and text; filters as in Scouts' search box: kind:task, from:NAME, scout:NAME, lane:spam, is:pending, before:DATE, after:DATE. Read only.",
		InputSchema: schema(`{"type":"object","additionalProperties":false,"required":["query"],"properties":{
			"query":{"type":"string","minLength":1,"maxLength":500,"description":"Words and filters, e.g. \"release note kind:task\"."},
			"limit":{"type":"integer","minimum":1,"maximum":200,"description":"At most this many (default 50)."}}}`),
		Annotations: readOnly("Search"),
	}, s.search)
}

func (s *server) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, Hits, error) {
	res, err := s.api.Search(ctx, strings.TrimSpace(in.Query), in.Limit)
	if err != nil {
		return nil, Hits{}, apiError(err)
	}
	out := Hits{Query: res.Query, Results: make([]Hit, 0, len(res.Results))}
	for _, h := range res.Results {
		out.Results = append(out.Results, Hit{Type: h.Type, ID: h.ID, Title: h.Title, Snippet: h.Snippet, Sender: h.Sender,
			Scout: h.Scout, Lane: h.Lane, Status: h.Status, ProposedKind: h.ProposedKind, Done: h.Done, At: h.At})
	}
	return nil, out, nil
}
