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
	// AuditSettled records what a card's silence taught the learner: it
	// was left unopened in Spam or Screened past the grace period.
	AuditSettled = "suggestion.settled"
	// AuditSentTo records that the person wrote to a sender (Gmail's sent
	// mail), which taught the learner their mail is wanted.
	AuditSentTo = "learner.sent_to"
)

// Audit event types of the user's rules.
const (
	// AuditRuleMatched records that a user's rule decided an item on
	// arrival.
	AuditRuleMatched = "rule.matched"
	// AuditRuleTooSlow records that the item's evaluation budget ran out
	// on a user's rule: it and the rules after it were not tried on the
	// item.
	AuditRuleTooSlow = "rule.too_slow"
)

// Audit event types of actions and policies.
const (
	AuditActionQueued      = "action.queued"      // recorded with the decision, waiting in the outbox
	AuditActionAttempt     = "action.attempt"     // an attempt started
	AuditActionDone        = "action.done"        // the attempt succeeded
	AuditActionFailed      = "action.failed"      // the attempt failed (retried later, or for good)
	AuditActionInterrupted = "action.interrupted" // the agent stopped during an attempt; it runs again
	AuditActionRetried     = "action.retried"     // the person asked for another attempt
	AuditActionDropped     = "action.dropped"     // the person gave up on it
	AuditActionCancelled   = "action.cancelled"   // the approval was undone before it ran
	AuditActionDenied      = "action.denied"      // a policy denied an action a rule proposed
	AuditActionLeftOut     = "action.left_out"    // the person unticked actions of the plan
	AuditPolicyChanged     = "policy.changed"
)

// Audit event types of a scout's runs (not of an item): their trace id is
// the run's own.
const (
	// AuditRunSkipped: a trigger came while the scout was running and its
	// overlap policy is skip, or a missed scheduled run was not caught up.
	AuditRunSkipped = "scout.run_skipped"
	// AuditLockTakenOver: the scout's run lock was held by a holder that
	// died (its process is gone, or it stopped renewing the lock); this
	// run took it over.
	AuditLockTakenOver = "scout.lock_taken_over"
	// AuditRunCaughtUp: a scheduled run was missed while the agent was off
	// and the scout ran once at start for it.
	AuditRunCaughtUp = "scout.run_caught_up"
)

// Audit stages: where in the pipeline an event happened.
const (
	StageSource   = "source"   // seen at the source
	StageTriage   = "triage"   // judged (rules, heuristics, model)
	StageDecision = "decision" // a person (or a recorded policy) decided
	StageExecute  = "execute"  // the decision took effect
	StageRun      = "run"      // a scout's run, not an item's
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
