package rules

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Result is a rule's verdict on one item.
type Result struct {
	Truth Truth
	// Why says which conditions held, when Truth is True:
	// `subject contains "invoice"`.
	Why string
	// Unknown lists the fields the verdict depended on that the item does
	// not carry.
	Unknown []string
	// Spent is set when the evaluation budget ran out (Truth is then
	// Unknown); OutOfTime when it was the item's time.
	Spent, OutOfTime bool
}

// Evaluate tests the rule's filter on an item, spending from *budget
// (ItemBudget for a fresh item), in steps only; the rule's enabled flag is
// not looked at.
func (c *Compiled) Evaluate(it *Item, budget *int) Result {
	return c.evaluate(it, budget, nil)
}

func (c *Compiled) evaluate(it *Item, budget *int, m *itemMeter) Result {
	e := newEvaluator(it, *budget, m)
	t := e.eval(c.filter)
	r := Result{Truth: t, Unknown: e.unknown, Spent: e.spent, OutOfTime: e.timeUp}
	if t == True {
		r.Why = e.explain(c.filter)
	}
	*budget = e.budget
	return r
}

// Set is a scout's rules, in order.
type Set []*Compiled

// Match returns the first enabled rule whose filter is true for the item,
// or nil, within the item's default budget (see MatchWithin). notes say
// what could not be tried (the item's budget ran out).
func (s Set) Match(it *Item, trusted string) (*Compiled, Result, []string) {
	m := s.MatchWithin(it, trusted, Budget{})
	return m.Rule, m.Result, m.Notes
}

// Effect is what a matched rule does beyond the lane: its title and
// actions rendered for the item, its due date resolved.
type Effect struct {
	// Title is the rendered title, "" when the rule sets none or its
	// template failed on this item.
	Title   string
	Due     time.Time
	Actions []RenderedAction
	// Notes say what failed (a template on this item); the rule's verdict
	// stands, and the card keeps what it had instead.
	Notes []string
}

// RenderedAction is an action with its parameters rendered for one item.
type RenderedAction struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params,omitempty"`
	// A step of a plan (steps.go) also carries: its output's name; the
	// pointers of its parameters left as templates, rendered when it runs
	// (Late), with the item fields they read (Vars); whether it is an
	// on_failure step; Plan when the rule is a plan, its steps run in
	// order.
	OutputAs  string         `json:"output_as,omitempty"`
	Late      []string       `json:"late,omitempty"`
	Vars      map[string]any `json:"vars,omitempty"`
	OnFailure bool           `json:"on_failure,omitempty"`
	Plan      bool           `json:"plan,omitempty"`
}

// Apply renders the rule's title and actions for an item and resolves its
// due date from the item's arrival (it.Received) in loc.
func (c *Compiled) Apply(it Item, loc *time.Location) Effect {
	var eff Effect
	if loc == nil {
		loc = time.Local
	}
	data := TemplateData(it)
	if c.title != nil {
		title, err := c.title.Render(data)
		if err != nil {
			eff.Notes = append(eff.Notes, fmt.Sprintf("rule %q: its title template failed on this item (%v); the card keeps its title", c.Rule.ID, err))
		} else {
			eff.Title = strings.Join(strings.Fields(title), " ")
		}
	}
	eff.Due = c.due.At(it.Received, loc)
	for li, list := range [][]compiledAction{c.actions, c.onFailure} {
		base := "/then/actions/"
		if li == 1 {
			base = "/then/on_failure/"
		}
		for i, a := range list {
			params, err := a.render(data, base+strconv.Itoa(i)+"/params")
			if err != nil {
				eff.Notes = append(eff.Notes, fmt.Sprintf("rule %q: action %s left out: its parameters failed on this item (%v)", c.Rule.ID, a.name, err))
				continue
			}
			ra := RenderedAction{Action: a.name, Params: params, OutputAs: a.outputAs, Late: a.late, OnFailure: li == 1, Plan: c.plan}
			for _, f := range a.vars {
				if ra.Vars == nil {
					ra.Vars = map[string]any{}
				}
				ra.Vars[f] = data[f]
			}
			eff.Actions = append(eff.Actions, ra)
		}
	}
	return eff
}

// render renders an action's template parameters.
func (a compiledAction) render(data map[string]any, base string) (json.RawMessage, error) {
	if a.params == nil {
		return nil, nil
	}
	var failed error
	out := mapStrings(a.params, base, func(path, s string) string {
		t, ok := a.tmpls[path]
		if !ok || failed != nil || contains(a.late, strings.TrimPrefix(path, base)) {
			return s // a late template renders when its step runs
		}
		v, err := t.Render(data)
		if err != nil {
			failed = fmt.Errorf("%s: %w", path, err)
		}
		return v
	})
	if failed != nil {
		return nil, failed
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("rules: action %s: %w", a.name, err)
	}
	return b, nil
}

// mapStrings copies a decoded JSON value with f applied to its strings.
func mapStrings(v any, path string, f func(path, s string) string) any {
	switch x := v.(type) {
	case string:
		return f(path, x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mapStrings(e, pointer(path, k), f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapStrings(e, pointer(path, strconv.Itoa(i)), f)
		}
		return out
	}
	return v
}
