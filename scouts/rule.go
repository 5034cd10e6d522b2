package scouts

import (
	"context"
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
