package apitype

import (
	"encoding/json"
	"time"
)

// Scouts as definitions (docs/definitions.md).

// FieldChange is one field of a definition that differs between two
// versions: its path ("source.path", "rules[0].when") and its values.
type FieldChange struct {
	Path string `json:"path"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// DefinitionChange is what importing one definition does or would do.
type DefinitionChange struct {
	// Action is create, update or unchanged.
	Action  string        `json:"action"`
	ScoutID string        `json:"scout_id,omitempty"`
	Name    string        `json:"name"`
	Kind    string        `json:"kind"`
	Changes []FieldChange `json:"changes,omitempty"`
	// Version is the scout's definition version after the import (0 in a
	// dry run).
	Version int `json:"version,omitempty"`
	// HookToken is a new webhook scout's token, shown once.
	HookToken string `json:"hook_token,omitempty"`
	// PastVersions are the version numbers the import adds (or would
	// add) from the definition's history, oldest first.
	PastVersions []int `json:"past_versions,omitempty"`
}

// ImportResult answers POST /api/v1/definitions/import.
type ImportResult struct {
	Applied bool               `json:"applied"`
	Changes []DefinitionChange `json:"changes"`
}

// DefinitionError is a definition that cannot be read or breaks the
// schema: its file, its 1-based line (0 when unknown) and why.
type DefinitionError struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
}

// DefinitionsStatus answers GET /api/v1/definitions/status.
type DefinitionsStatus struct {
	// Dir is the definitions folder ("" when none).
	Dir string `json:"dir"`
	// ManagedBy maps a scout's id to the file that manages it
	// ("file:NAME").
	ManagedBy        map[string]string `json:"managed_by"`
	DefinitionErrors []DefinitionError `json:"definition_errors"`
	// Drafting says whether a model is configured to draft definitions
	// from a description (POST /api/v1/definitions/draft).
	Drafting bool `json:"drafting"`
}

// ScoutVersion is one version of a scout's definition.
type ScoutVersion struct {
	Version   int             `json:"version"`
	CreatedAt time.Time       `json:"created_at"`
	Actor     string          `json:"actor"`
	Note      string          `json:"note,omitempty"`
	Document  json.RawMessage `json:"document"`
}

// VersionDiff answers GET /api/v1/scouts/{id}/versions/diff.
type VersionDiff struct {
	From    int           `json:"from"`
	To      int           `json:"to"`
	Changes []FieldChange `json:"changes"`
}
