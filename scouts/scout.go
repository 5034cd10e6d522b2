// Package scouts is the domain of the product: scouts watch sources and turn
// what arrives into suggestions; a person approves a suggestion into an
// entity (task, note, event, project) or rejects it. Every step leaves an
// audit event carrying the item's trace id.
//
// The package holds the domain types, their rules and their error codes,
// and the interfaces a source implements (SourceConnector). It imports the
// standard library only (deps_test.go keeps it so): everything else builds
// on it. The engine that runs scouts, decides and plans is scouts/engine;
// storage and sources plug into it.
package scouts

import (
	"encoding/json"
	"strings"
	"time"
)

// Kind is the kind of source a scout watches.
type Kind string

const (
	KindFolder  Kind = "folder"
	KindGmail   Kind = "gmail"
	KindWebhook Kind = "webhook"
	// KindAgent is an AI agent connected to Scouts' MCP server: one scout
	// per client, named by it; its items are the agent's proposals
	// (app/mcpserve), which a person decides like any other card.
	KindAgent Kind = "agent"
	// KindChain runs on another scout's events (an entity created, an
	// action done, a card approved): each becomes an item of its own
	// (app/core/chain.go, docs/definitions.md "Chaining scouts").
	KindChain Kind = "chain"
)

// Scout is one watcher of one source.
type Scout struct {
	ID      string
	Kind    Kind
	Name    string
	Enabled bool
	// Review means every item becomes a suggestion for a person to decide
	// (human in the loop). Without it the scout auto-creates the proposed
	// entity directly, still audited. Folder scouts default to review in the
	// product's first-run set-up; the user opts each scout in or out.
	Review bool
	// Config is the kind-specific configuration (for a folder: its path and
	// globs), owned and validated by the connector for Kind.
	Config json.RawMessage
	// Schedule is when the scout runs by itself and how its runs overlap;
	// Budget caps the model tokens it spends (both fields of its
	// definition).
	Schedule Schedule
	Budget   Budget
	// WriteScope is where its actions may write (a field of its
	// definition; the zero value is the narrow default).
	WriteScope WriteScope

	CreatedAt time.Time
	UpdatedAt time.Time

	// Health of the last run, for the user's "is it working?" question.
	LastRunAt   time.Time
	LastError   string
	LastRunNew  int // items that became suggestions or entities in the last run
	TotalNew    int // items since the scout was created
	LastSuccess time.Time
}

// Validate checks the fields every scout has; the connector checks Config.
func (s Scout) Validate() error {
	switch s.Kind {
	case KindFolder, KindGmail, KindWebhook, KindAgent, KindChain:
	case "":
		return Errorf(EInvalid, "scout kind is required (one of folder, gmail, webhook, agent, chain)")
	default:
		return Errorf(EInvalid, "unknown scout kind %q (want folder, gmail, webhook, agent or chain)", s.Kind)
	}
	if strings.TrimSpace(s.Name) == "" {
		return Errorf(EInvalid, "scout name is required")
	}
	if len(s.Name) > 200 {
		return Errorf(EInvalid, "scout name is longer than 200 bytes")
	}
	return nil
}
