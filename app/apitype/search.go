package apitype

import "time"

// SearchResults answers GET /api/v1/search: the hits, best first for a
// search with words, newest first for filters alone.
type SearchResults struct {
	Query   string      `json:"query"`
	Results []SearchHit `json:"results"`
}

// SearchHit is one thing a search found: a card (any lane or status), a
// task, note, event or project.
type SearchHit struct {
	// Type is card, task, note, event or project.
	Type  string `json:"type"`
	ID    string `json:"id"`
	Title string `json:"title"`
	// Snippet is the text around the match, plain: a card's excerpt (a
	// mail's snippet, never its body) or path, an entity's body.
	Snippet string `json:"snippet"`
	Sender  string `json:"sender,omitempty"`
	// ScoutID and Scout name the card's scout, or that of the card an
	// entity was made from.
	ScoutID string `json:"scout_id,omitempty"`
	Scout   string `json:"scout,omitempty"`
	// Lane, Status and ProposedKind are a card's.
	Lane         string `json:"lane,omitempty"`
	Status       string `json:"status,omitempty"`
	ProposedKind string `json:"proposed_kind,omitempty"`
	Done         bool   `json:"done,omitempty"` // tasks, projects
	// At is what before: and after: compare: an event's start, anything
	// else's creation.
	At time.Time `json:"at"`
}
