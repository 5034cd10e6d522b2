package scouts

import (
	"encoding/json"
	"time"
)

// Status is where a suggestion is in its life.
type Status string

const (
	StatusPending  Status = "pending"
	StatusApproved Status = "approved"
	StatusRejected Status = "rejected"
	// StatusExpired: nobody decided in time. Expired suggestions stay
	// visible; they are never silently deleted.
	StatusExpired Status = "expired"
)

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case StatusPending, StatusApproved, StatusRejected, StatusExpired:
		return true
	}
	return false
}

// DefaultExpiry is how long a suggestion waits for a decision.
const DefaultExpiry = 30 * 24 * time.Hour

// Suggestion is what a scout proposes for one item from its source.
type Suggestion struct {
	ID         string
	ScoutID    string
	SourceType Kind
	// SourceRef identifies the item within its scout (a file's path and
	// content hash, a Gmail message id); unique per scout, which is what
	// makes re-detection of the same item harmless.
	SourceRef string
	TraceID   string

	Title   string
	Excerpt string
	Sender  string // who sent it, for mail and webhooks
	Path    string // where it lives, for files (display form)
	URL     string // a link back to the item, when it has one

	ProposedKind EntityKind
	// Reason says why the card exists: which scout saw what, and which
	// rule or heuristic proposed the kind.
	Reason  string
	Payload json.RawMessage

	Status    Status
	CreatedAt time.Time
	ExpiresAt time.Time

	ResolvedAt       time.Time
	ResolvedKind     EntityKind
	ResolvedEntityID string
	// ResolvedBy is who decided: "user", "cli", or "policy" for items a
	// scout created without review.
	ResolvedBy string

	// Lane is where the item waits (or, once decided, where it was); see
	// Assessment for why.
	Lane       Lane
	Assessment Assessment
	// Rescued is set when the person brought the item back from a lane
	// below the inbox.
	Rescued Rescue

	// OpenedAt is when the person first had the card's content in front
	// of them (read through the local API) or acted on the card (moved it,
	// undid a decision): a card the person has seen never teaches by
	// silence. Zero: never.
	OpenedAt time.Time
	// Silence is the lane whose verdict the person confirmed by leaving
	// the card alone past the grace period (engine.SettleSilent), and
	// SettledAt when that was recorded; empty and zero until then. A card
	// settles once.
	Silence   Lane
	SettledAt time.Time

	// SnoozedUntil is when a card in LaneSnoozed returns to the inbox;
	// zero when it is not snoozed. ReturnedAt is when a snoozed card came
	// back on its own (it is listed at the top of the inbox).
	SnoozedUntil time.Time
	ReturnedAt   time.Time
}

// Decide checks that a pending suggestion may move to status to. Decisions
// are final: an approved suggestion is not rejected later and, as seed 002
// puts it, denied stays denied.
func (s Suggestion) Decide(to Status) error {
	if s.Status == StatusPending {
		switch to {
		case StatusApproved, StatusRejected, StatusExpired:
			return nil
		}
		return Errorf(EInvalid, "cannot move a suggestion to %q", to)
	}
	return Errorf(EConflict, "suggestion %s is already %s", s.ID, s.Status)
}

// DefaultUndoWindow is how long after a decision it can be undone: long
// enough for "oops, wrong key", short enough that undo never reaches back
// into decisions whose effects others may have seen.
const DefaultUndoWindow = 30 * time.Second

// CanUndo checks that the decision on s can still be undone at now.
func (s Suggestion) CanUndo(now time.Time, window time.Duration) error {
	switch s.Status {
	case StatusApproved, StatusRejected:
	case StatusPending:
		return Errorf(EConflict, "suggestion %s has not been decided; nothing to undo", s.ID)
	default:
		return Errorf(EConflict, "suggestion %s is %s; only approvals and rejections can be undone", s.ID, s.Status)
	}
	if age := now.Sub(s.ResolvedAt); age > window {
		return Errorf(EConflict, "too late to undo: suggestion %s was decided %s ago (undo is possible for %s)", s.ID, age.Round(time.Second), window)
	}
	return nil
}
