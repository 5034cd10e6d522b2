package apitype

import "encoding/json"

// Changing a scout in plain words (docs/definitions.md, "Changing a scout
// in words"; docs/api.md).

// EditDraftRequest is the body of POST /api/v1/scouts/{id}/edit-draft.
type EditDraftRequest struct {
	// Describe says what to change, in plain words.
	Describe string `json:"describe"`
}

// DraftRisk is one thing a definition does that a person should decide
// knowingly (auto_create, runs_without_approval, danger_action,
// wider_write_scope…).
type DraftRisk struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// DiffLine is one line of a definition's line diff: Op is "same", "add"
// or "remove".
type DiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// EditDraft answers POST /api/v1/scouts/{id}/edit-draft: the change the
// model proposes, checked like a new draft. Nothing is saved.
type EditDraft struct {
	ScoutID  string `json:"scout_id"`
	Describe string `json:"describe"`
	// BaseVersion is the version the change was made from: saving it
	// is refused once another version is current.
	BaseVersion int `json:"base_version"`
	// Current and Proposed are the definitions before and after (Proposed
	// as the model wrote it when it is not a definition).
	Current  json.RawMessage `json:"current"`
	Proposed json.RawMessage `json:"proposed"`
	// Valid, Errors, Summary and Risks are the proposed definition's.
	Valid   bool              `json:"valid"`
	Errors  []DefinitionError `json:"errors,omitempty"`
	Summary []string          `json:"summary,omitempty"`
	Risks   []DraftRisk       `json:"risks,omitempty"`
	// RisksAdded are the risks the change adds to the current definition.
	RisksAdded []DraftRisk `json:"risks_added"`
	// Diff is the proposed definition against the current, line by line.
	Diff   []DiffLine `json:"diff"`
	Tokens int        `json:"tokens,omitempty"`
}

// SaveEditDraft is the body of POST /api/v1/scouts/{id}/edit-draft/save:
// the definition reviewed, the version it was made from and the words it
// was asked with (for the version's note).
type SaveEditDraft struct {
	BaseVersion int             `json:"base_version"`
	Definition  json.RawMessage `json:"definition"`
	Describe    string          `json:"describe"`
}
