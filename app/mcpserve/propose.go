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

// The write tool, propose, and get_decision, which reads the outcome.
// Neither decides: a person does, in Scouts.

type proposeIn struct {
	Kind     string         `json:"kind,omitempty"`
	Title    string         `json:"title"`
	Body     string         `json:"body,omitempty"`
	URL      string         `json:"url,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Due      string         `json:"due,omitempty"`
	StartsAt string         `json:"starts_at,omitempty"`
	EndsAt   string         `json:"ends_at,omitempty"`
	AllDay   bool           `json:"all_day,omitempty"`
	Action   string         `json:"action,omitempty"`
	Params   map[string]any `json:"params,omitempty"`
	Key      string         `json:"key,omitempty"`
}

// Proposal is propose's answer.
type Proposal struct {
	// ID is the card's id: pass it to get_decision.
	ID     string `json:"id"`
	Status string `json:"status"`
	Lane   string `json:"lane"`
	// Created is false when the same proposal (same key, or same content)
	// had been made before: this is that card.
	Created bool   `json:"created"`
	Scout   string `json:"scout_id"`
	// Plan is what approving the card would do.
	Plan    []PlanStep `json:"plan,omitempty"`
	Message string     `json:"message"`
}

type decisionIn struct {
	ID          string `json:"id"`
	WaitSeconds int    `json:"wait_seconds,omitempty"`
}

// Decision is get_decision's answer.
type Decision struct {
	ID string `json:"id"`
	// Status is pending, approved, rejected or expired.
	Status    string     `json:"status"`
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	// Created is what approving the card created (approved only).
	Created *Item `json:"created,omitempty"`
	// Actions are the plan's actions and where each stands (approved
	// only): queued, running, done, failed, dropped.
	Actions []PlanStep `json:"actions,omitempty"`
	// Note is the person's note with a rejection, if they gave one.
	Note string `json:"note,omitempty"`
	// Lane is where a pending card waits (inbox, screened, spam).
	Lane    string `json:"lane,omitempty"`
	Message string `json:"message"`
}

func (s *server) addProposeTools(srv *mcp.Server) {
	f := false
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "propose",
		Title: "Propose to the person",
		Description: "Propose a task, a note, an event, or an action from Scouts' catalogue with its arguments. It becomes a card in Scouts' inbox for the person to approve or reject; " +
			"nothing is created and no action runs until they approve it (or a policy they set allows it). Returns the card's id: call get_decision with it. " +
			"Proposing the same thing twice (same key, or same content) returns the same card.",
		InputSchema: schema(`{"type":"object","additionalProperties":false,"required":["title"],"properties":{
			"kind":{"type":"string","enum":["task","note","event","project"],"description":"What approving creates (default task). For an action, the task that records it."},
			"title":{"type":"string","minLength":1,"maxLength":1024,"description":"What the card says, in one line."},
			"body":{"type":"string","maxLength":1048576,"description":"The text of the task, note or event."},
			"url":{"type":"string","maxLength":2048,"pattern":"^https?://","description":"A link back to what this is about."},
			"reason":{"type":"string","maxLength":1000,"description":"Why you propose it, for the person."},
			"due":{"type":"string","description":"A task's due date: 2026-05-31 or 2026-05-31T09:00:00Z."},
			"starts_at":{"type":"string","description":"An event's start (required for an event), RFC 3339 or a date."},
			"ends_at":{"type":"string","description":"An event's end."},
			"all_day":{"type":"boolean","description":"An all-day event."},
			"action":{"type":"string","maxLength":200,"description":"An action from Scouts' catalogue to run if the person approves (webhook.post, mcp.<server>.<tool>, …); checked now against its schema and the person's policies."},
			"params":{"type":"object","description":"The action's arguments, as its schema in the catalogue says."},
			"key":{"type":"string","maxLength":200,"description":"Your own id for this proposal: retrying with the same key returns the same card."}}}`),
		// It only adds a card to the person's inbox: nothing is removed or
		// overwritten, nothing leaves the machine, and a retry is the same
		// card.
		Annotations: &mcp.ToolAnnotations{Title: "Propose", ReadOnlyHint: false, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f},
	}, s.propose)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "get_decision",
		Title: "The person's decision",
		Description: "What the person decided on a card (by its id): pending; approved, with what was created and how its actions stand; rejected, with the person's note; or expired. " +
			"With wait_seconds, waits up to that long (at most 600) for a decision, sending progress notifications while it waits if you gave a progress token. Read only: it never decides.",
		InputSchema: schema(`{"type":"object","additionalProperties":false,"required":["id"],"properties":{
			"id":{"type":"string","minLength":1,"maxLength":100,"description":"The card's id, as propose gave it."},
			"wait_seconds":{"type":"integer","minimum":0,"maximum":600,"description":"Wait up to this many seconds for the decision (0: answer now)."}}}`),
		Annotations: readOnly("Get a decision"),
	}, s.getDecision)
}

func (s *server) propose(ctx context.Context, req *mcp.CallToolRequest, in proposeIn) (*mcp.CallToolResult, Proposal, error) {
	p := apitype.AgentProposal{Client: clientName(req), Kind: in.Kind, Title: in.Title, Body: in.Body, URL: in.URL, Reason: in.Reason,
		Due: in.Due, StartsAt: in.StartsAt, EndsAt: in.EndsAt, AllDay: in.AllDay, Action: in.Action, Key: in.Key}
	if in.Params != nil {
		b, err := json.Marshal(in.Params)
		if err != nil {
			return nil, Proposal{}, fmt.Errorf("params: %w", err)
		}
		p.Params = b
	}
	res, err := s.api.Propose(ctx, p)
	if err != nil {
		return nil, Proposal{}, apiError(err)
	}
	out := Proposal{ID: res.Suggestion.ID, Status: res.Suggestion.Status, Lane: res.Suggestion.Lane, Created: res.Created, Scout: res.Suggestion.ScoutID}
	if sg, err := s.api.Suggestion(ctx, out.ID); err == nil {
		out.Plan = toDetail(sg).Plan
		out.Status, out.Lane = sg.Status, sg.Lane
	}
	switch {
	case out.Status != "pending":
		out.Message = "This card is already " + out.Status + " (call get_decision for the outcome)."
	case out.Created:
		out.Message = "Proposed: the person decides it in Scouts. Call get_decision with id " + out.ID + " (wait_seconds to wait)."
	default:
		out.Message = "The same proposal is already waiting as " + out.ID + "; call get_decision with it."
	}
	return nil, out, nil
}

func (s *server) getDecision(ctx context.Context, req *mcp.CallToolRequest, in decisionIn) (*mcp.CallToolResult, Decision, error) {
	id := strings.TrimSpace(in.ID)
	wait := time.Duration(in.WaitSeconds) * time.Second
	if wait > s.maxWait {
		wait = s.maxWait
	}
	var w *localclient.Watcher
	if wait > 0 {
		// The stream is opened before the card is read, so that a
		// decision made between the two is not missed.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
		var err error
		if w, err = s.api.Watch(ctx, 0); err != nil {
			return nil, Decision{}, apiError(err)
		}
	}
	sg, err := s.api.Suggestion(ctx, id)
	if err != nil {
		return nil, Decision{}, apiError(err)
	}
	if sg.Status == "pending" && w != nil {
		sg, err = s.waitDecision(ctx, req, w, sg, wait)
		if err != nil {
			return nil, Decision{}, apiError(err)
		}
	}
	d, err := s.decision(context.WithoutCancel(ctx), sg)
	if err != nil {
		return nil, Decision{}, apiError(err)
	}
	return nil, d, nil
}

// waitDecision waits on the agent's stream for sg to be decided, until
// ctx's deadline (then it answers the card as it stands), telling the
// client it still waits when it asked for progress.
func (s *server) waitDecision(ctx context.Context, req *mcp.CallToolRequest, w *localclient.Watcher, sg apitype.Suggestion, wait time.Duration) (apitype.Suggestion, error) {
	start := time.Now()
	token := req.Params.GetProgressToken()
	progress := func() {
		if token == nil || req.Session == nil {
			return
		}
		el := time.Since(start).Seconds()
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: el, Total: wait.Seconds(),
			Message: "Waiting for the person to decide " + sg.ID + " in Scouts"})
	}
	progress()
	events := make(chan apitype.StreamEvent)
	go func() {
		defer close(events)
		for {
			ev, err := w.Next()
			if err != nil {
				return
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// Out of time: the card as it stands now.
			return s.api.Suggestion(context.WithoutCancel(ctx), sg.ID)
		case <-tick.C:
			progress()
		case ev, ok := <-events:
			if !ok {
				return s.api.Suggestion(context.WithoutCancel(ctx), sg.ID)
			}
			if !strings.HasPrefix(ev.Type, "suggestion.") || !strings.Contains(string(ev.Data), sg.ID) {
				continue
			}
			cur, err := s.api.Suggestion(ctx, sg.ID)
			if err != nil {
				if ctx.Err() != nil {
					return s.api.Suggestion(context.WithoutCancel(ctx), sg.ID)
				}
				return cur, err
			}
			if cur.Status != "pending" {
				return cur, nil
			}
		}
	}
}

// decision words a card's state for the agent that proposed it.
func (s *server) decision(ctx context.Context, sg apitype.Suggestion) (Decision, error) {
	d := Decision{ID: sg.ID, Status: sg.Status, DecidedAt: sg.ResolvedAt}
	switch sg.Status {
	case "pending":
		d.Lane = sg.Lane
		d.Message = "Pending: the person has not decided yet."
	case "approved":
		d.Message = "Approved by the person."
		if sg.ResolvedKind != "" && sg.ResolvedID != "" {
			e, err := s.api.Entity(ctx, sg.ResolvedKind, sg.ResolvedID)
			var ae *localclient.Error
			switch {
			case err == nil:
				it := toItem(e)
				d.Created = &it
				d.Message = "Approved by the person: " + e.Kind + " " + e.ID + " was created."
			case errors.As(err, &ae) && ae.Status == 404:
				d.Message = "Approved by the person; what it created has since been deleted."
			default:
				return d, err
			}
		}
		for _, st := range toDetail(sg).Plan {
			if st.State != "" && st.State != "proposed" {
				d.Actions = append(d.Actions, st)
			}
		}
	case "rejected":
		d.Message = "Rejected by the person."
		trail, err := s.api.Audit(ctx, sg.TraceID)
		if err != nil {
			return d, err
		}
		// The latest rejection's note: an undone rejection followed by
		// another leaves the second's.
		for _, ev := range trail {
			if ev.Type == "suggestion.rejected" || ev.Type == "suggestion.marked_spam" {
				d.Note = ev.Refs["note"]
			}
		}
		if d.Note != "" {
			d.Message = "Rejected by the person: " + d.Note
		}
	case "expired":
		d.Message = "Expired: the person did not decide in time."
	}
	return d, nil
}
