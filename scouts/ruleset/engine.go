package ruleset

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// Rules is one scout's rules as the engine applies them (a scouts.RuleSet).
type Rules struct {
	Kind scouts.Kind
	Set  rules.Set
	// Project resolves a rule's project, written as an id or a name, to
	// the id of an existing project; "" when there is none. Nil leaves
	// projects unset.
	Project func(ctx context.Context, idOrName string) (string, error)
	// Loc is where relative due dates fall at midnight; nil is time.Local.
	Loc *time.Location
	// Now stands in for an item's arrival when the source gives none.
	Now func() time.Time
	// Budget is what the rules may spend on one item; zero is the
	// default (rules.ItemBudget steps, rules.ItemTime of CPU).
	Budget rules.Budget
}

// Match returns the first matching rule's outcome for an item, nil when
// none matches. When the item's budget runs out on a rule, the outcome
// names that rule as too slow and decides nothing: the item goes on as no
// rule matched it.
func (r *Rules) Match(ctx context.Context, meta scouts.ItemMetadata) (*scouts.RuleOutcome, error) {
	if len(r.Set) == 0 {
		return nil, nil
	}
	it := ItemFromMetadata(r.Kind, meta)
	if it.Received.IsZero() && r.Now != nil {
		it.Received = r.Now()
	}
	m := r.Set.MatchWithin(&it, meta.MatchedRule, r.Budget)
	if m.Rule == nil {
		if m.TooSlow != nil {
			return &scouts.RuleOutcome{TooSlow: m.TooSlow.Rule.ID, TooSlowWhy: strings.Join(m.Notes, "; ")}, nil
		}
		return nil, nil
	}
	return r.Outcome(ctx, m.Rule, m.Result, it)
}

// Outcome turns a matched rule into what it does to the item.
func (r *Rules) Outcome(ctx context.Context, c *rules.Compiled, res rules.Result, it rules.Item) (*scouts.RuleOutcome, error) {
	t := c.Rule.Then
	out := &scouts.RuleOutcome{RuleID: c.Rule.ID, Verdict: scouts.RuleVerdict(t.Verdict), Why: res.Why, Kind: scouts.EntityKind(t.Kind)}
	eff := c.Apply(it, r.Loc)
	out.Title, out.Due, out.Notes = eff.Title, eff.Due, eff.Notes
	for _, a := range eff.Actions {
		out.Actions = append(out.Actions, scouts.RuleAction{RuleID: c.Rule.ID, Action: a.Action, Params: a.Params,
			OutputAs: a.OutputAs, Late: a.Late, Vars: a.Vars, OnFailure: a.OnFailure, Plan: a.Plan})
	}
	if t.Project != "" && r.Project != nil {
		id, err := r.Project(ctx, t.Project)
		if err != nil {
			return nil, fmt.Errorf("ruleset: rule %s: project: %w", c.Rule.ID, err)
		}
		if id == "" {
			out.Notes = append(out.Notes, fmt.Sprintf("rule %q: there is no project %q; the card has none", c.Rule.ID, t.Project))
		}
		out.ProjectID = id
	}
	return out, nil
}
