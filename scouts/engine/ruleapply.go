package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// applyRule makes a rule's outcome the item's assessment: its verdict
// sets the lane (the learner and the source's triage cannot override it)
// and its fields win over the content's, a model's and the learner's. It
// returns the kind to propose.
func applyRule(r *scouts.RuleOutcome, kind scouts.EntityKind, as *assessment) scouts.EntityKind {
	as.notes = append(as.notes, r.Notes...)
	as.tooSlow, as.tooSlowWhy = r.TooSlow, r.TooSlowWhy
	if r.RuleID == "" {
		return kind
	}
	name := fmt.Sprintf("rule “%s”", r.RuleID)
	why := name + ": " + r.Why
	as.RuleID = r.RuleID
	switch r.Verdict {
	case scouts.RuleShow:
		as.Lane, as.LaneReason = scouts.LaneInbox, ""
	case scouts.RuleScreen:
		as.Lane, as.LaneReason = scouts.LaneScreened, "Screened by "+why
	case scouts.RuleSpam:
		as.Lane, as.LaneReason = scouts.LaneSpam, "Spam: "+why
	case scouts.RuleSkip:
		as.Lane, as.LaneReason = scouts.LaneScreened, "Skipped by "+why
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
		as.title = clip(r.Title, scouts.MaxTitleBytes)
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

// ruleDecides reports an outcome of a rule that matched.
func ruleDecides(r *scouts.RuleOutcome) bool { return r != nil && r.RuleID != "" }

// rule tries the scout's rules on an item; nil when none matched.
func (a *assessor) rule(ctx context.Context, meta scouts.ItemMetadata) (*scouts.RuleOutcome, error) {
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
func ruleAudits(as assessment, trace string, refs func(extra ...string) map[string]string, now time.Time) []scouts.AuditEvent {
	var out []scouts.AuditEvent
	if as.tooSlow != "" {
		out = append(out, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageTriage, Type: scouts.AuditRuleTooSlow, Outcome: scouts.OutcomeSkipped,
			Summary: as.tooSlowWhy, Refs: refs("rule_id", as.tooSlow), At: now})
	}
	if as.RuleID != "" {
		out = append(out, scouts.AuditEvent{TraceID: trace, Stage: scouts.StageTriage, Type: scouts.AuditRuleMatched, Outcome: scouts.OutcomeOK,
			Summary: as.ruleSummary, Refs: refs("rule_id", as.RuleID), At: now})
	}
	return out
}
