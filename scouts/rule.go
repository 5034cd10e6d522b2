package scouts

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// RuleVerdict is what a user's rule does with an item's lane.
type RuleVerdict string

const (
	// RuleShow puts the item in the inbox, whatever the learner or the
	// source's triage say.
	RuleShow   RuleVerdict = "show"
	RuleScreen RuleVerdict = "screen"
	RuleSpam   RuleVerdict = "spam"
	// RuleSkip puts the item in Screened, noted as skipped by the rule.
	RuleSkip RuleVerdict = "skip"
)

// RuleOutcome is what a scout's first matching rule decided about an
// item (scouts/rules holds the grammar; scouts/ruleset applies it to
// items).
type RuleOutcome struct {
	// RuleID is the rule that matched; empty when none did but Notes say
	// why some rules were not tried.
	RuleID  string
	Verdict RuleVerdict
	// Why says which of the rule's conditions held:
	// `subject contains "invoice"`.
	Why string
	// Kind, Title, ProjectID and Due override what the content, a model
	// and the learner propose; empty or zero leaves them be.
	Kind      EntityKind
	Title     string
	ProjectID string
	Due       time.Time
	// Actions are attached to the suggestion's plan.
	Actions []RuleAction
	// Notes say what went wrong applying the rule to this item (a
	// template that failed, a project that no longer exists); they go on
	// the item's trail, and the verdict stands.
	Notes []string
	// TooSlow names the rule the item's evaluation budget ran out on (it
	// and the rules after it were not tried; RuleID is then empty and the
	// item goes on as no rule matched it); TooSlowWhy says so for the
	// item's trail, in a rule.too_slow event.
	TooSlow    string
	TooSlowWhy string
}

// RuleSet is a scout's rules, loaded once for a page of items.
type RuleSet interface {
	// Match returns the outcome of the first enabled rule that matches
	// the item, nil when none does.
	Match(ctx context.Context, meta ItemMetadata) (*RuleOutcome, error)
}

// applyRule makes a rule's outcome the item's assessment: its verdict
// sets the lane (the learner and the source's triage cannot override it)
// and its fields win over the content's, a model's and the learner's. It
// returns the kind to propose.
func applyRule(r *RuleOutcome, kind EntityKind, as *Assessment) EntityKind {
	as.notes = append(as.notes, r.Notes...)
	as.tooSlow, as.tooSlowWhy = r.TooSlow, r.TooSlowWhy
	if r.RuleID == "" {
		return kind
	}
	name := fmt.Sprintf("rule “%s”", r.RuleID)
	why := name + ": " + r.Why
	as.RuleID = r.RuleID
	switch r.Verdict {
	case RuleShow:
		as.Lane, as.LaneReason = LaneInbox, ""
	case RuleScreen:
		as.Lane, as.LaneReason = LaneScreened, "Screened by "+why
	case RuleSpam:
		as.Lane, as.LaneReason = LaneSpam, "Spam: "+why
	case RuleSkip:
		as.Lane, as.LaneReason = LaneScreened, "Skipped by "+why
	}
	as.Why = append([]string{why}, as.Why...)
	did := []string{"the " + string(r.Verdict) + " verdict (" + string(as.Lane) + ")"}
	if r.Kind != "" {
		did = append(did, "kind "+string(r.Kind))
	}
	if r.Title != "" {
		did = append(did, "its title")
	}
	if r.ProjectID != "" {
		did = append(did, "project "+r.ProjectID)
	}
	if !r.Due.IsZero() {
		did = append(did, "due "+r.Due.Format("2006-01-02 15:04"))
	}
	for _, a := range r.Actions {
		did = append(did, "action "+a.Action)
	}
	as.ruleSummary = "Matched " + why + " — applied " + strings.Join(did, ", ")
	if r.Kind != "" {
		kind, as.KindFrom = r.Kind, "rule"
	}
	if r.Title != "" {
		as.title = clip(r.Title, MaxTitleBytes)
	}
	if r.ProjectID != "" {
		as.ProjectID = r.ProjectID
	}
	if !r.Due.IsZero() {
		as.Due = r.Due
	}
	for _, a := range r.Actions {
		a.RuleID = r.RuleID
		as.RuleActions = append(as.RuleActions, a)
	}
	return kind
}

// AuditRuleMatched records that a user's rule decided an item on arrival.
const AuditRuleMatched = "rule.matched"

// AuditRuleTooSlow records that the item's evaluation budget ran out on a
// user's rule: it and the rules after it were not tried on the item.
const AuditRuleTooSlow = "rule.too_slow"

// decides reports an outcome of a rule that matched.
func (r *RuleOutcome) decides() bool { return r != nil && r.RuleID != "" }

// rule tries the scout's rules on an item; nil when none matched.
func (a *assessor) rule(ctx context.Context, meta ItemMetadata) (*RuleOutcome, error) {
	load := a.e.cfg.Rules
	if load == nil {
		return nil, nil
	}
	if !a.rulesRead {
		rs, err := load(ctx, a.s)
		if err != nil {
			return nil, fmt.Errorf("engine: rules of %s: %w", a.s.ID, err)
		}
		a.rules, a.rulesRead = rs, true
	}
	if a.rules == nil {
		return nil, nil
	}
	out, err := a.rules.Match(ctx, meta)
	if err != nil {
		return nil, fmt.Errorf("engine: rules of %s: %w", a.s.ID, err)
	}
	return out, nil
}

// ruleAudits are the trail's entries for the user's rules on an item: the
// rule that decided it, or the one too slow to be tried to the end.
func ruleAudits(as Assessment, trace string, refs func(extra ...string) map[string]string, now time.Time) []AuditEvent {
	var out []AuditEvent
	if as.tooSlow != "" {
		out = append(out, AuditEvent{TraceID: trace, Stage: StageTriage, Type: AuditRuleTooSlow, Outcome: OutcomeSkipped,
			Summary: as.tooSlowWhy, Refs: refs("rule_id", as.tooSlow), At: now})
	}
	if as.RuleID != "" {
		out = append(out, AuditEvent{TraceID: trace, Stage: StageTriage, Type: AuditRuleMatched, Outcome: OutcomeOK,
			Summary: as.ruleSummary, Refs: refs("rule_id", as.RuleID), At: now})
	}
	return out
}
