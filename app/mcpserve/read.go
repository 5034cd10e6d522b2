package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// The read tools: what waits for the person, one card, and what the
// person has. Each is read-only and touches nothing but the local API's
// GET endpoints.

// Card is a card as an agent reads it.
type Card struct {
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Excerpt      string    `json:"excerpt,omitempty"`
	ProposedKind string    `json:"proposed_kind"`
	Status       string    `json:"status"`
	Lane         string    `json:"lane"`
	Scout        string    `json:"scout_id"`
	Source       string    `json:"source"`
	Sender       string    `json:"sender,omitempty"`
	URL          string    `json:"url,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	ExpiresAt    time.Time `json:"expires_at"`
}

// CardDetail is one card with what approving it would do.
type CardDetail struct {
	Card
	// Plan lists what approving the card does: the entity, then each
	// action with its mode (allow, require_approval, deny) and state.
	Plan []PlanStep `json:"plan,omitempty"`
}

// PlanStep is one action of a card's plan.
type PlanStep struct {
	Action string `json:"action"`
	// Params are the action's arguments (an object).
	Params  map[string]any `json:"params,omitempty"`
	Enabled bool           `json:"enabled"`
	// Origin says who put the action in the plan: kind (the entity),
	// default, rule:<id>, source (the proposing agent) or user.
	Origin string `json:"origin"`
	Mode   string `json:"mode"`
	State  string `json:"state,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Brief is list_pending_suggestions' answer.
type Brief struct {
	// Pending counts the pending cards in each lane.
	Pending map[string]int `json:"pending"`
	Cards   []Card         `json:"cards"`
	// More is set when there were more cards than the limit.
	More bool `json:"more,omitempty"`
}

// Item is a task, note or event as an agent reads it.
type Item struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Title     string     `json:"title"`
	Body      string     `json:"body,omitempty"`
	Done      *bool      `json:"done,omitempty"`
	Due       *time.Time `json:"due,omitempty"`
	StartsAt  *time.Time `json:"starts_at,omitempty"`
	EndsAt    *time.Time `json:"ends_at,omitempty"`
	Location  string     `json:"location,omitempty"`
	ProjectID string     `json:"project_id,omitempty"`
	// FromCard is the card the item was approved from, if any.
	FromCard  string    `json:"from_card,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Items is a listing of tasks, notes or events.
type Items struct {
	Items []Item `json:"items"`
	More  bool   `json:"more,omitempty"`
}

type listPendingIn struct {
	Lane  string `json:"lane,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

type idIn struct {
	ID string `json:"id"`
}

type listItemsIn struct {
	Done  *bool `json:"done,omitempty"`
	Limit int   `json:"limit,omitempty"`
}

// maxBodyShown caps an item's body in a listing: an agent asks for a
// listing to find things, not to read them whole.
const maxBodyShown = 2000

func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	// Reads of the person's own data on this machine: no change, nothing
	// outside it.
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

func (s *server) addReadTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "list_pending_suggestions",
		Title:       "What waits for the person",
		Description: "The person's brief: the cards waiting for their decision in Scouts (mail, files, webhooks, other agents' proposals), most likely approved first, with how many wait in each lane. Read only.",
		InputSchema: schema(`{"type":"object","additionalProperties":false,"properties":{
			"lane":{"type":"string","enum":["inbox","screened","spam","all"],"description":"Which lane: inbox (default) is what the person sees first; screened and spam are what Scouts put aside."},
			"limit":{"type":"integer","minimum":1,"maximum":100,"description":"At most this many cards (default 20)."}}}`),
		Annotations: readOnly("List pending suggestions"),
	}, s.listPending)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "get_suggestion",
		Title:       "One card",
		Description: "One card by its id (sg_…): what it says, its status and lane, and its plan — what approving it would create and which actions would run, each with its mode. Read only.",
		InputSchema: schema(`{"type":"object","additionalProperties":false,"required":["id"],"properties":{
			"id":{"type":"string","minLength":1,"maxLength":100,"description":"The card's id, as list_pending_suggestions or propose gave it."}}}`),
		Annotations: readOnly("Get a suggestion"),
	}, s.getSuggestion)
	for _, k := range []struct{ kind, plural, what string }{
		{"task", "tasks", "The person's tasks (open and done unless done says which)."},
		{"note", "notes", "The person's notes."},
		{"event", "events", "The person's events."},
	} {
		props := `"limit":{"type":"integer","minimum":1,"maximum":200,"description":"At most this many (default 50), newest first."}`
		if k.kind == "task" {
			props = `"done":{"type":"boolean","description":"true: only done tasks; false: only open ones; absent: both."},` + props
		}
		kind := k.kind
		mcp.AddTool(srv, &mcp.Tool{
			Name:        "list_" + k.plural,
			Title:       "The person's " + k.plural,
			Description: k.what + " Read only; to add one, propose it.",
			InputSchema: schema(`{"type":"object","additionalProperties":false,"properties":{` + props + `}}`),
			Annotations: readOnly("List " + k.plural),
		}, func(ctx context.Context, _ *mcp.CallToolRequest, in listItemsIn) (*mcp.CallToolResult, Items, error) {
			return s.listItems(ctx, kind, in)
		})
	}
}

// schema is a tool's input schema written out, so that it says exactly
// what is accepted (enums, limits, no other fields).
func schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("mcpserve: invalid schema: " + s)
	}
	return json.RawMessage(s)
}

func (s *server) listPending(ctx context.Context, _ *mcp.CallToolRequest, in listPendingIn) (*mcp.CallToolResult, Brief, error) {
	lane := in.Lane
	if lane == "" {
		lane = "inbox"
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	st, err := s.api.Status(ctx)
	if err != nil {
		return nil, Brief{}, apiError(err)
	}
	list, err := s.api.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending", Lane: lane, Order: "likely", Limit: limit + 1})
	if err != nil {
		return nil, Brief{}, apiError(err)
	}
	out := Brief{Pending: map[string]int{}, Cards: []Card{}}
	for l, n := range st.Lanes {
		out.Pending[l] = n
	}
	if len(list) > limit {
		list, out.More = list[:limit], true
	}
	for _, sg := range list {
		out.Cards = append(out.Cards, toCard(sg))
	}
	return nil, out, nil
}

func (s *server) getSuggestion(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, CardDetail, error) {
	sg, err := s.api.Suggestion(ctx, strings.TrimSpace(in.ID))
	if err != nil {
		return nil, CardDetail{}, apiError(err)
	}
	return nil, toDetail(sg), nil
}

func (s *server) listItems(ctx context.Context, kind string, in listItemsIn) (*mcp.CallToolResult, Items, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 50
	}
	list, err := s.api.Entities(ctx, kind)
	if err != nil {
		return nil, Items{}, apiError(err)
	}
	out := Items{Items: []Item{}}
	// Newest first: what an agent most likely asks about.
	for i := len(list) - 1; i >= 0; i-- {
		e := list[i]
		if in.Done != nil && (e.Done == nil || *e.Done != *in.Done) {
			continue
		}
		if len(out.Items) == limit {
			out.More = true
			break
		}
		out.Items = append(out.Items, toItem(e))
	}
	return nil, out, nil
}

func toCard(sg apitype.Suggestion) Card {
	return Card{ID: sg.ID, Title: sg.Title, Excerpt: sg.Excerpt, ProposedKind: sg.ProposedKind, Status: sg.Status, Lane: sg.Lane,
		Scout: sg.ScoutID, Source: sg.SourceType, Sender: sg.Sender, URL: sg.URL, Reason: sg.Reason, CreatedAt: sg.CreatedAt, ExpiresAt: sg.ExpiresAt}
}

func toDetail(sg apitype.Suggestion) CardDetail {
	d := CardDetail{Card: toCard(sg)}
	if sg.Plan != nil {
		for _, a := range sg.Plan.Actions {
			st := PlanStep{Action: a.Action, Enabled: a.Enabled, Origin: a.Origin, Mode: a.Mode, State: a.State, Error: a.Error}
			json.Unmarshal(a.Params, &st.Params) // an object, or nothing
			d.Plan = append(d.Plan, st)
		}
	}
	return d
}

func toItem(e apitype.Entity) Item {
	body := e.Body
	if len(body) > maxBodyShown {
		body = clip(body, maxBodyShown) + "…"
	}
	return Item{ID: e.ID, Kind: e.Kind, Title: e.Title, Body: body, Done: e.Done, Due: e.Due, StartsAt: e.StartsAt, EndsAt: e.EndsAt,
		Location: e.Location, ProjectID: e.ProjectID, FromCard: e.SourceSuggestionID, CreatedAt: e.CreatedAt}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// apiError words the agent's answer for the calling agent: the local
// API's message (it says what to change), or that Scouts is not running.
func apiError(err error) error {
	var ae *localclient.Error
	switch {
	case errors.As(err, &ae):
		return fmt.Errorf("scouts: %s", ae.Message)
	case errors.Is(err, localclient.ErrNoAgent):
		return fmt.Errorf("scouts is not running on this machine (start it with: scouts agent)")
	}
	return fmt.Errorf("scouts: %w", err)
}
