package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Bounds of one categorisation.
const (
	// MaxToolRounds is how many answers may call tools; the request after
	// the last says tool_choice "none", so the model has to answer.
	MaxToolRounds = 4
	// MaxCallsPerRound bounds the tools one answer may call.
	MaxCallsPerRound = 8
	// DefaultItemTokens bounds the worst case reserved for one item over
	// all its rounds (see Allowance.ItemTokens).
	DefaultItemTokens = 40_000
	// categoriseCompletionTokens is the least completion cap of a
	// categorisation request: a proposal with a 200-character title takes
	// about 120 tokens.
	categoriseCompletionTokens = 400

	maxProjects = 100 // list_projects answers at most this many
	maxTasks    = 20  // recent_tasks
	maxNotes    = 10  // search_notes
	maxQuery    = 200 // runes of a search_notes query
)

// ErrBadProposal means the model's categorisation broke the contract:
// not JSON, a kind outside the set, an unreadable date, a date on a kind
// that has none, a project id no tool returned, a title over 200
// characters, too many tool calls.
var ErrBadProposal = errors.New("the model's answer is not a valid proposal")

// ErrBudgetSpent means the scout's daily token cap leaves too little for
// the next request: categorisation stops there.
var ErrBudgetSpent = errors.New("the scout's model budget is spent (for today, or for this run)")

// CategoriseInput is everything the model is told about one item, besides
// what its tools return.
type CategoriseInput struct {
	SourceType string // the item's source: "gmail", "folder", "webhook"
	Subject    string
	Sender     string
	Body       string // cut to triage.ModelBodyRunes runes
	// Now is the current time; the model is given its date in Zone, and
	// the zone, to resolve relative dates. Zone nil means time.Local.
	Now  time.Time
	Zone *time.Location
}

// Project is an open project, as list_projects returns it.
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Task is a recent task, as recent_tasks returns it.
type Task struct {
	Title     string
	ProjectID string
	Due       time.Time // zero if none
}

// Tools are the look-ups over the person's local data the model may call.
// A nil function is a tool not offered. They run on the caller's machine;
// what they return is sent to the model.
type Tools struct {
	ListProjects func(ctx context.Context) ([]Project, error)
	RecentTasks  func(ctx context.Context) ([]Task, error)
	SearchNotes  func(ctx context.Context, query string) ([]string, error)
}

// Allowance is the token budget categorisation spends: the same
// triage.Budget and daily cap as the scout's verdicts, so both share one
// cap.
type Allowance struct {
	Budget      triage.Budget
	Scout       string
	DailyTokens int
	// ItemTokens bounds the worst case reserved for one item over all its
	// rounds; 0 means DefaultItemTokens.
	ItemTokens int
}

// Proposal is a model's validated categorisation.
type Proposal struct {
	Kind  scouts.EntityKind
	Title string
	// Due is a task's; StartsAt and EndsAt an event's (EndsAt may be
	// zero). A date without a time of day is midnight in the zone, with
	// AllDay set.
	Due, StartsAt, EndsAt time.Time
	AllDay                bool
	// ProjectID is a task's project, one list_projects returned;
	// ProjectName is its name as the tool gave it.
	ProjectID, ProjectName string
	// Tokens is the usage counted against the budget over all rounds;
	// ToolCalls how many tools the model called.
	Tokens    int
	ToolCalls int
}

// Categorise asks the model what an item should become. The model may
// call the tools (tool_choice "auto") for at most MaxToolRounds answers;
// each call runs through the Tools callbacks and its result goes back as a
// "tool" message. The final answer is a proposal in the json_schema
// response format (plain JSON in the content is accepted, as for
// verdicts), validated strictly. Every request reserves its worst case
// from the allowance first and settles with the reported usage; the
// returned Proposal's Tokens is set even alongside an error.
func (c *Client) Categorise(ctx context.Context, in CategoriseInput, tools Tools, allow Allowance) (Proposal, error) {
	if allow.Budget == nil || allow.DailyTokens <= 0 {
		return Proposal{}, scouts.Errorf(scouts.EInvalid, "categorise: a token budget and a daily cap above 0 are required")
	}
	if allow.ItemTokens <= 0 {
		allow.ItemTokens = DefaultItemTokens
	}
	if in.Zone == nil {
		in.Zone = time.Local
	}
	if in.Now.IsZero() {
		in.Now = time.Now()
	}
	run := &categorisation{c: c, tools: tools, allow: allow, zone: in.Zone, projects: map[string]string{}}
	p, err := run.do(ctx, in)
	p.Tokens, p.ToolCalls = run.used, run.calls
	if err != nil {
		return p, c.fail(err)
	}
	return p, nil
}

// categorisation is the state of one Categorise call.
type categorisation struct {
	c        *Client
	tools    Tools
	allow    Allowance
	zone     *time.Location
	projects map[string]string // id → name, as list_projects returned them
	reserved int               // worst cases reserved so far
	used     int               // tokens counted against the budget
	calls    int
}

func (r *categorisation) do(ctx context.Context, in CategoriseInput) (Proposal, error) {
	defs := r.tools.defs()
	msgs := []message{
		{Role: "system", Content: text(categorisePrompt)},
		{Role: "user", Content: text(categoriseUser(in))},
	}
	for round := 0; ; round++ {
		req := request{
			Model:     r.c.cfg.Model,
			Messages:  msgs,
			MaxTokens: max(r.c.cfg.MaxCompletionTokens, categoriseCompletionTokens),
			ResponseFormat: responseFormat{Type: "json_schema", JSONSchema: jsonSchema{
				Name: "categorisation", Strict: true, Schema: json.RawMessage(proposalSchema),
			}},
		}
		last := round >= MaxToolRounds
		if len(defs) > 0 {
			// Tools stay declared in the last request: the messages refer
			// to them, and some servers insist.
			req.Tools, req.ToolChoice = defs, "auto"
			if last {
				req.ToolChoice = "none"
			}
		}
		t, err := r.send(ctx, req)
		if err != nil {
			return Proposal{}, err
		}
		if len(t.calls) == 0 {
			return parseProposal(*t.content, r.zone, r.projects)
		}
		if len(defs) == 0 {
			return Proposal{}, fmt.Errorf("%w: it calls tools though none were offered", ErrBadProposal)
		}
		if last {
			return Proposal{}, fmt.Errorf("%w: it still calls tools after %d rounds", ErrBadProposal, round)
		}
		if len(t.calls) > MaxCallsPerRound {
			return Proposal{}, fmt.Errorf("%w: %d tool calls in one answer (at most %d)", ErrBadProposal, len(t.calls), MaxCallsPerRound)
		}
		results := make([]message, 0, len(t.calls))
		for i := range t.calls {
			out, err := r.call(ctx, t.calls[i])
			if err != nil {
				return Proposal{}, err
			}
			// Echoed back, the calls must be well formed even when a
			// server left out their id or type, or wrote arguments that
			// are not JSON (the tool message says so; servers that parse
			// the history would refuse them).
			if t.calls[i].ID == "" {
				t.calls[i].ID = fmt.Sprintf("call_%d_%d", round, i)
			}
			t.calls[i].Type = "function"
			if !json.Valid([]byte(t.calls[i].Function.Arguments)) {
				t.calls[i].Function.Arguments = "{}"
			}
			results = append(results, message{Role: "tool", ToolCallID: t.calls[i].ID, Content: text(out)})
		}
		msgs = append(msgs, message{Role: "assistant", ToolCalls: t.calls})
		msgs = append(msgs, results...)
	}
}

// send makes one request within the allowance: it reserves the request's
// worst case (every byte of the body a token, the chat template's overhead
// and the completion cap), then settles with the usage the server reported
// (the worst case when it reported none; nothing when the call failed
// without usage, as for verdicts).
func (r *categorisation) send(ctx context.Context, req request) (reply, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return reply{}, err
	}
	worst := len(body) + perMessageOverhead*len(req.Messages) + req.MaxTokens
	if r.reserved+worst > r.allow.ItemTokens {
		return reply{}, fmt.Errorf("categorisation would pass its bound of %d tokens for one item", r.allow.ItemTokens)
	}
	res, ok, err := r.allow.Budget.Reserve(ctx, r.allow.Scout, r.allow.DailyTokens, worst)
	if err != nil {
		return reply{}, fmt.Errorf("token budget: %w", err)
	}
	if !ok {
		return reply{}, ErrBudgetSpent
	}
	r.reserved += worst
	raw, err := r.c.post(ctx, body)
	var t reply
	if err == nil {
		t, err = parseTurn(raw)
		if err == nil && t.tokens <= 0 {
			t.tokens = worst
		}
	}
	r.used += t.tokens
	// A failed Commit leaves the whole reservation counted, the safe side;
	// the answer is good either way.
	_ = r.allow.Budget.Commit(ctx, res, t.tokens)
	return t, err
}

// call runs one tool call and returns the tool message's content. A call
// the model got wrong (an unknown tool, bad arguments) is answered with an
// error the model can read and act on; a failing look-up fails the
// categorisation.
func (r *categorisation) call(ctx context.Context, call toolCall) (string, error) {
	r.calls++
	reply := func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	}
	type toolError struct {
		Error string `json:"error"`
	}
	var args map[string]json.RawMessage
	if a := strings.TrimSpace(call.Function.Arguments); a != "" {
		if json.Unmarshal([]byte(a), &args) != nil {
			return reply(toolError{"the arguments are not a JSON object"})
		}
	}
	switch name := call.Function.Name; {
	case name == toolListProjects.Function.Name && r.tools.ListProjects != nil:
		ps, err := r.tools.ListProjects(ctx)
		if err != nil {
			return "", fmt.Errorf("tool list_projects: %w", err)
		}
		out := make([]Project, 0, min(len(ps), maxProjects))
		for _, p := range ps[:min(len(ps), maxProjects)] {
			p.Name = triage.Truncate(p.Name, 100)
			r.projects[p.ID] = p.Name
			out = append(out, p)
		}
		return reply(map[string]any{"projects": out})
	case name == toolRecentTasks.Function.Name && r.tools.RecentTasks != nil:
		ts, err := r.tools.RecentTasks(ctx)
		if err != nil {
			return "", fmt.Errorf("tool recent_tasks: %w", err)
		}
		type task struct {
			Title     string `json:"title"`
			ProjectID string `json:"project_id,omitempty"`
			Due       string `json:"due,omitempty"`
		}
		out := make([]task, 0, min(len(ts), maxTasks))
		for _, t := range ts[:min(len(ts), maxTasks)] {
			w := task{Title: triage.Truncate(t.Title, MaxTitleRunes), ProjectID: t.ProjectID}
			if !t.Due.IsZero() {
				w.Due = t.Due.In(r.zone).Format(time.RFC3339)
			}
			out = append(out, w)
		}
		return reply(map[string]any{"tasks": out})
	case name == toolSearchNotes.Function.Name && r.tools.SearchNotes != nil:
		var q string
		if json.Unmarshal(args["query"], &q) != nil || strings.TrimSpace(q) == "" {
			return reply(toolError{`search_notes needs a query: {"query": "a few words"}`})
		}
		titles, err := r.tools.SearchNotes(ctx, triage.Truncate(strings.TrimSpace(q), maxQuery))
		if err != nil {
			return "", fmt.Errorf("tool search_notes: %w", err)
		}
		out := make([]string, 0, min(len(titles), maxNotes))
		for _, t := range titles[:min(len(titles), maxNotes)] {
			out = append(out, triage.Truncate(t, MaxTitleRunes))
		}
		return reply(map[string]any{"notes": out})
	default:
		return reply(toolError{"there is no such tool; the tools are " + strings.Join(r.tools.names(), ", ")})
	}
}

// defs lists the tools offered.
func (t Tools) defs() []toolDef {
	var out []toolDef
	if t.ListProjects != nil {
		out = append(out, toolListProjects)
	}
	if t.RecentTasks != nil {
		out = append(out, toolRecentTasks)
	}
	if t.SearchNotes != nil {
		out = append(out, toolSearchNotes)
	}
	return out
}

func (t Tools) names() []string {
	var out []string
	for _, d := range t.defs() {
		out = append(out, d.Function.Name)
	}
	return out
}
