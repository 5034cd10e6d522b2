package apitype

import (
	"encoding/json"
	"time"
)

// Rules: a scout's rules in the filter grammar (docs/rules.md).

// Rule is one of a scout's rules as listed: the document as written, and
// where it stands. A client edits Rule and sends it back as is.
type Rule struct {
	// Rule is the rule document: {"id", "name", "enabled", "when", "then"}.
	Rule json.RawMessage `json:"rule"`
	// Position is its place in the order the rules are tried, from 0.
	Position int `json:"position"`
	// Relay is set for a relay-triage Gmail scout's rules that the relay
	// applies itself, before the mail reaches the desktop.
	Relay bool `json:"relay,omitempty"`
	// Problem is set when a stored rule no longer compiles (an action the
	// catalogue dropped); it is skipped until fixed.
	Problem   string    `json:"problem,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// RuleList is a scout's rules, in order, with what its rules can test.
type RuleList struct {
	ScoutID string      `json:"scout_id"`
	Kind    string      `json:"kind"`
	Rules   []Rule      `json:"rules"`
	Fields  []RuleField `json:"fields"`
	// Operators and Functions are the grammar's operators and the
	// functions templates may call, for an editor.
	Operators []string `json:"operators"`
	Functions []string `json:"functions"`
}

// RuleField is a field rules can test for the scout's kind.
type RuleField struct {
	Name string `json:"name"`
	// Type is string, list, number, bool or json (a webhook body field).
	Type string `json:"type"`
	Doc  string `json:"doc"`
}

// RuleEnabled switches a rule on or off (PATCH
// /api/v1/scouts/{id}/rules/{rule_id}).
type RuleEnabled struct {
	Enabled bool `json:"enabled"`
}

// RuleOrder is a scout's rules' new order: every rule id once.
type RuleOrder struct {
	IDs []string `json:"ids"`
}

// RulePreview is what a rule would have done to a scout's latest items.
type RulePreview struct {
	RuleID string `json:"rule_id"`
	// Matched, Unknown and NoMatch count the items by result.
	Matched int               `json:"matched"`
	Unknown int               `json:"unknown"`
	NoMatch int               `json:"no_match"`
	Items   []RulePreviewItem `json:"items"`
}

// RulePreviewItem is one item of a preview.
type RulePreviewItem struct {
	SuggestionID string    `json:"suggestion_id"`
	Title        string    `json:"title"`
	Sender       string    `json:"sender,omitempty"`
	Path         string    `json:"path,omitempty"`
	Status       string    `json:"status"`
	Lane         string    `json:"lane"`
	Kind         string    `json:"kind"`
	CreatedAt    time.Time `json:"created_at"`
	// Result is "match", "no_match" or "unknown" (the rule depends on
	// fields the card does not keep: UnknownFields).
	Result        string   `json:"result"`
	UnknownFields []string `json:"unknown_fields,omitempty"`
	// Why says which conditions held, for a match.
	Why string `json:"why,omitempty"`
	// EarlierRule is an enabled rule before this one that matches the
	// item too, and would decide instead.
	EarlierRule string `json:"earlier_rule,omitempty"`
	// Would is what the rule would do, for a match.
	Would *RuleEffect `json:"would,omitempty"`
}

// RuleEffect is what a matching rule does to one item.
type RuleEffect struct {
	Verdict   string       `json:"verdict"`
	Lane      string       `json:"lane"`
	Kind      string       `json:"kind,omitempty"`
	Title     string       `json:"title,omitempty"`
	ProjectID string       `json:"project_id,omitempty"`
	Due       *time.Time   `json:"due,omitempty"`
	Actions   []RuleAction `json:"actions,omitempty"`
	Notes     []string     `json:"notes,omitempty"`
}

// RuleAction is an action with its parameters rendered for an item.
type RuleAction struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params,omitempty"`
}
