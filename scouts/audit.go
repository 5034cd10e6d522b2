package scouts

import "time"

// Audit event types, in the order an item usually meets them.
const (
	AuditItemDetected      = "item.detected"      // the source saw a new item
	AuditItemSkipped       = "item.skipped"       // the item cannot become a suggestion (unreadable, link out of root, …)
	AuditItemNote          = "item.note"          // something worth knowing about the item (huge file, odd name)
	AuditSuggestionCreated = "suggestion.created" // a card waits for a person
	AuditAutoApproved      = "suggestion.auto_approved"
	AuditApproved          = "suggestion.approved"
	AuditRejected          = "suggestion.rejected"
	AuditExpired           = "suggestion.expired"
	AuditEntityCreated     = "entity.created"
	AuditUndone            = "suggestion.undone" // a decision taken back within the undo window
	AuditEntityDeleted     = "entity.deleted"
	AuditLaned             = "suggestion.laned"       // put in a lane below the inbox on arrival, and why
	AuditMoved             = "suggestion.moved"       // moved between lanes (brought back to the inbox)
	AuditMarkedSpam        = "suggestion.marked_spam" // a person said it is spam
)

// Audit stages: where in the pipeline an event happened.
const (
	StageSource   = "source"   // seen at the source
	StageTriage   = "triage"   // judged (rules, heuristics, model)
	StageDecision = "decision" // a person (or a recorded policy) decided
	StageExecute  = "execute"  // the decision took effect
)

// Audit outcomes.
const (
	OutcomeOK      = "ok"
	OutcomeSkipped = "skipped"
	OutcomeError   = "error"
)

// AuditEvent is one step of an item's story. All events of one item share
// its TraceID, from the source to the entity it became.
type AuditEvent struct {
	ID      int64
	TraceID string
	Stage   string
	Type    string
	Outcome string
	Summary string
	// Refs names the things involved: scout_id, suggestion_id, entity_id,
	// source_ref, and who or what decided ("actor": user, policy, scout).
	Refs map[string]string
	At   time.Time
}
