package apitype

import (
	"encoding/json"
	"time"
)

// ActionDef is one action of the catalogue (GET /api/v1/actions).
type ActionDef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Risk is the hint that sets the default mode: read (allow), write
	// and danger (require_approval).
	Risk string `json:"risk"`
	// Runs: "local" (an entity, created with the decision) or "outbox"
	// (a remote side effect, queued with the decision and run after it,
	// exactly once in effect).
	Runs string `json:"runs"`
	// Kinds lists the scout kinds whose cards it acts on; absent: any.
	Kinds []string `json:"kinds,omitempty"`
	// Schema is the JSON Schema (draft 2020-12) of its params.
	Schema json.RawMessage `json:"schema"`
	// Available: this desktop can run it (a remote action needs what it
	// acts through, such as Gmail set up).
	Available bool `json:"available"`
	// InferredMode is the mode its risk gives when no policy is set.
	InferredMode string `json:"inferred_mode"`
}

// PlanAction is one action of a card's plan: proposed (a pending card's,
// before approval) or recorded (with its number n and its state).
type PlanAction struct {
	// SuggestionID is set in action.updated stream events.
	SuggestionID string `json:"suggestion_id,omitempty"`
	// N numbers a card's recorded actions from 1 (for retry and drop);
	// absent on proposed ones.
	N       int             `json:"n,omitempty"`
	Action  string          `json:"action"`
	Params  json.RawMessage `json:"params"`
	Enabled bool            `json:"enabled"`
	// Origin: kind (the entity the approval creates), default (the
	// user's defaults, e.g. archive), rule:<id>, or user.
	Origin      string `json:"origin"`
	Description string `json:"description,omitempty"`
	Risk        string `json:"risk,omitempty"`
	Runs        string `json:"runs,omitempty"`
	// Mode is the resolved mode (allow, require_approval, deny) and
	// ModeSource where it came from (scout, global, inferred). A denied
	// action is proposed unticked and cannot be ticked.
	Mode       string `json:"mode"`
	ModeSource string `json:"mode_source"`
	// State: proposed, queued, running, done, failed, dropped (by the
	// person), cancelled (the approval was undone first) or undone.
	State string `json:"state"`
	// Phase of a recorded action: approval, or arrival (a rule proposed
	// it and a policy allowed it without approval).
	Phase     string `json:"phase,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
	Attempts  int    `json:"attempts,omitempty"`
	// Error is the last attempt's error (a failing action).
	Error string `json:"error,omitempty"`
	// NextRetry is when a queued action is tried next (after a failure).
	NextRetry *time.Time `json:"next_retry,omitempty"`
	// Failing: failed, or waiting to retry after a failure; such an
	// action can be retried or dropped.
	Failing   bool            `json:"failing,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	UpdatedAt *time.Time      `json:"updated_at,omitempty"`
	// After is the N of the step this one waits for (a step of a rule's
	// plan, docs/actions.md "Steps"): the outbox takes it only once that
	// one is done, and a step failed for good holds it until retried or
	// dropped.
	After int `json:"after,omitempty"`
	// OnFailure marks an on_failure step, added because the step FailedN
	// failed for good (FailedN is set in a card's plan only).
	OnFailure bool `json:"on_failure,omitempty"`
	FailedN   int  `json:"failed_n,omitempty"`
	// OutputAs names the step's result for the steps after it
	// ({{.steps.NAME.field}}).
	OutputAs string `json:"output_as,omitempty"`
}

// Plan is a card's plan (GET /api/v1/suggestions/{id}/plan, and the plan
// of GET /api/v1/suggestions/{id}): the recorded actions first, then, for
// a pending card, what approving it as Kind would do.
type Plan struct {
	// Kind is the kind the proposed actions are for (pending cards).
	Kind    string       `json:"kind,omitempty"`
	Actions []PlanAction `json:"actions"`
	// Failing counts the recorded actions that are failing.
	Failing int `json:"failing"`
}

// ApproveAction is one action of the plan in an approve request, as the
// card showed it, ticked or not. Recorded actions (with n) are ignored.
type ApproveAction struct {
	N       int             `json:"n,omitempty"`
	Action  string          `json:"action"`
	Params  json.RawMessage `json:"params,omitempty"`
	Enabled bool            `json:"enabled"`
}

// Policies is GET /api/v1/policies and the answer to PUT.
type Policies struct {
	// Global maps actions to their global mode.
	Global map[string]string `json:"global"`
	// Scouts maps scout ids to their overrides (action → mode).
	Scouts   map[string]map[string]string `json:"scouts"`
	Defaults PlanDefaults                 `json:"defaults"`
	// Resolved is each action's mode for the scout asked about
	// (?scout_id=), or for a scout without overrides, with its source.
	Resolved []ResolvedMode `json:"resolved"`
}

// ResolvedMode is an action's mode and where it comes from.
type ResolvedMode struct {
	Action string `json:"action"`
	Risk   string `json:"risk"`
	Mode   string `json:"mode"`
	Source string `json:"source"`
}

// PlanDefaults are what cards propose by default.
type PlanDefaults struct {
	// GmailArchive: Gmail cards propose archiving the email (ticked).
	GmailArchive bool `json:"gmail_archive"`
	// GmailLabel: Gmail cards propose adding this label ("" for none).
	GmailLabel string `json:"gmail_label"`
}

// PutPolicies is the body of PUT /api/v1/policies, a merge patch: the
// modes it names are set (allow, deny, require_approval) or removed (null
// or ""), the others are left as they are; defaults, when present,
// replace the defaults.
type PutPolicies struct {
	Global   map[string]*string            `json:"global,omitempty"`
	Scouts   map[string]map[string]*string `json:"scouts,omitempty"`
	Defaults *PlanDefaults                 `json:"defaults,omitempty"`
}

// PolicyChange is the data of the stream's policy.changed event.
type PolicyChange struct {
	// ScoutID is empty for a global setting.
	ScoutID string `json:"scout_id,omitempty"`
	Action  string `json:"action"`
	// Mode is empty when the setting was removed.
	Mode string    `json:"mode,omitempty"`
	By   string    `json:"by"`
	At   time.Time `json:"at"`
}
