package scouts

import "encoding/json"

// RuleAction is an action a rule proposed for an item when it arrived,
// kept in its Assessment: it runs without approval only when its resolved
// mode is allow (see plan.go); otherwise it waits in the card's plan.
type RuleAction struct {
	RuleID string          `json:"rule_id,omitempty"`
	Action string          `json:"action"`
	Params json.RawMessage `json:"params,omitempty"`
	// A step of a rule's plan (scouts/rules, steps.go) also carries its
	// output's name, the pointers of its parameters rendered when it runs
	// (Late) with the item fields they read (Vars), whether it is an
	// on_failure step, and Plan: the rule's steps run in order.
	OutputAs  string         `json:"output_as,omitempty"`
	Late      []string       `json:"late,omitempty"`
	Vars      map[string]any `json:"vars,omitempty"`
	OnFailure bool           `json:"on_failure,omitempty"`
	Plan      bool           `json:"plan,omitempty"`
}
