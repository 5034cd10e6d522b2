package scouts

import "encoding/json"

// RuleAction is an action a rule proposed for an item when it arrived,
// kept in its Assessment: it runs without approval only when its resolved
// mode is allow (see plan.go); otherwise it waits in the card's plan.
type RuleAction struct {
	RuleID string          `json:"rule_id,omitempty"`
	Action string          `json:"action"`
	Params json.RawMessage `json:"params,omitempty"`
}
