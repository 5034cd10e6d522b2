package rulebook

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/ruleset"
)

// PreviewItems is how many of a scout's latest items a preview reads.
const PreviewItems = 50

// RulePreview is what a rule would have done to a scout's latest items.
type RulePreview struct {
	RuleID string
	// Matched, Unknown and Missed count the items the rule matches, the
	// ones it depends on fields their cards do not keep for, and the rest.
	Matched, Unknown, Missed int
	Items                    []PreviewItem
}

// PreviewItem is one item of a preview.
type PreviewItem struct {
	Suggestion scouts.Suggestion
	// Result is "match", "no_match" or "unknown": unknown when the verdict
	// depends on fields the card does not keep (a mail's labels, List-Id,
	// recipients or body; a file's size or text), which are never guessed.
	Result string
	// UnknownFields are those fields.
	UnknownFields []string
	// Why says which conditions held, for a match.
	Why string
	// EarlierRule is an enabled rule before this one in the scout's order
	// that matches the item too: it would decide instead.
	EarlierRule string
	// Would is what the rule would do to the item, for a match.
	Would *PreviewEffect
}

// PreviewEffect is what a matching rule would do to one item.
type PreviewEffect struct {
	Verdict   rules.Verdict
	Lane      scouts.Lane
	Kind      scouts.EntityKind
	Title     string
	ProjectID string
	Due       time.Time
	Actions   []rules.RenderedAction
	Notes     []string
}

// Preview tests a rule document (saved or not) on the scout's latest
// PreviewItems items, from what their cards keep: nothing is read from the
// source and nothing is stored.
func (b *Book) Preview(ctx context.Context, scoutID string, doc []byte) (RulePreview, error) {
	s, err := b.ruleScout(ctx, scoutID)
	if err != nil {
		return RulePreview{}, err
	}
	comp, err := b.compile(s, doc)
	if err != nil {
		return RulePreview{}, err
	}
	cr, err := b.rulesOf(ctx, s)
	if err != nil {
		return RulePreview{}, err
	}
	// The rules tried before this one: those above it when it is saved,
	// all the scout's when it is new (it would be added last).
	var earlier rules.Set
	for _, r := range cr.set {
		if r.Rule.ID == comp.Rule.ID {
			break
		}
		if r.Rule.IsEnabled() {
			earlier = append(earlier, r)
		}
	}
	items, err := b.cfg.Store.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: s.ID, Newest: true, Limit: PreviewItems})
	if err != nil {
		return RulePreview{}, err
	}
	out := RulePreview{RuleID: comp.Rule.ID, Items: make([]PreviewItem, 0, len(items))}
	for _, sug := range items {
		it := ruleset.ItemFromSuggestion(sug)
		budget := rules.ItemBudget
		r := comp.Evaluate(&it, &budget)
		p := PreviewItem{Suggestion: sug, UnknownFields: r.Unknown}
		switch r.Truth {
		case rules.True:
			out.Matched++
			p.Result, p.Why = "match", r.Why
			p.Would, err = b.previewEffect(ctx, comp, r, it)
			if err != nil {
				return RulePreview{}, err
			}
			if first, _, _ := earlier.Match(&it, ""); first != nil {
				p.EarlierRule = first.Rule.ID
			}
		case rules.Unknown:
			out.Unknown++
			p.Result = "unknown"
		default:
			out.Missed++
			p.Result = "no_match"
		}
		out.Items = append(out.Items, p)
	}
	return out, nil
}

func (b *Book) previewEffect(ctx context.Context, comp *rules.Compiled, r rules.Result, it rules.Item) (*PreviewEffect, error) {
	rs := &ruleset.Rules{Kind: scouts.Kind(comp.Kind()), Set: rules.Set{comp}, Project: b.findProject, Loc: time.Local, Now: b.now}
	o, err := rs.Outcome(ctx, comp, r, it)
	if err != nil {
		return nil, err
	}
	e := &PreviewEffect{Verdict: comp.Rule.Then.Verdict, Kind: o.Kind, Title: o.Title, ProjectID: o.ProjectID, Due: o.Due, Notes: o.Notes}
	for _, a := range o.Actions {
		e.Actions = append(e.Actions, rules.RenderedAction{Action: a.Action, Params: a.Params})
	}
	switch comp.Rule.Then.Verdict {
	case rules.Show:
		e.Lane = scouts.LaneInbox
	case rules.Spam:
		e.Lane = scouts.LaneSpam
	default:
		e.Lane = scouts.LaneScreened
	}
	return e, nil
}
