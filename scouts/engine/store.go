package engine

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// Store is what the engine needs from storage. Each method is one durable
// step: when it returns nil, what it wrote survives a crash.
type Store interface {
	// ListScouts returns every scout.
	ListScouts(ctx context.Context) ([]scouts.Scout, error)
	// KnownRefs returns which of refs already have a suggestion in scout.
	KnownRefs(ctx context.Context, scoutID string, refs []string) (map[string]bool, error)
	// RecordItems stores new items in one transaction: each record's
	// suggestion, its entity (auto-created items) and audit events. A record
	// whose (scout, source ref) already exists is skipped whole. Loose audit
	// events (skipped items) are stored as given. It returns the records
	// that were inserted.
	RecordItems(ctx context.Context, recs []ItemRecord, loose []scouts.AuditEvent) ([]ItemRecord, error)
	// AppendAudit stores audit events.
	AppendAudit(ctx context.Context, events ...scouts.AuditEvent) error
	// RecordRun stores the outcome of work for a scout outside its runs (a
	// watch that failed, a relay's answer) for its health display.
	RecordRun(ctx context.Context, scoutID string, run RunResult) error
	// DefinitionVersion is the scout's current definition version (0:
	// none recorded yet).
	DefinitionVersion(ctx context.Context, scoutID string) (int, error)
	// StartRun records a run as running (RunRunning) in its scout's
	// history, keeping the latest RunsKept.
	StartRun(ctx context.Context, run scouts.Run) error
	// AddRun records a finished run in its scout's history — the one
	// StartRun recorded, finished in place, or a new one — keeping the
	// latest RunsKept, and — unless it was skipped or stopped — its
	// health, in one transaction.
	AddRun(ctx context.Context, run scouts.Run) error

	// GetSuggestion returns one suggestion.
	GetSuggestion(ctx context.Context, id string) (scouts.Suggestion, error)
	// ApproveSuggestion approves a pending suggestion in one transaction:
	// build is called with the suggestion and its actions as stored, and
	// what it returns — the entity, the plan's actions (remote ones queued
	// in the outbox), scout overrides, audit events — is written with the
	// new status. If the suggestion is already approved as the same kind,
	// the existing entity is returned with created=false and build is not
	// called. by is who decided (Suggestion.ResolvedBy). The decision and
	// what it teaches the learner (TeachingOf) are one transaction, as in
	// every decision below.
	ApproveSuggestion(ctx context.Context, id string, kind scouts.EntityKind, by string, at time.Time,
		build func(scouts.Suggestion, []ActionRun) (ApprovalRecord, error)) (s scouts.Suggestion, e scouts.Entity, created bool, err error)
	// RejectSuggestion rejects a pending suggestion, writing the audit events
	// audit returns. Rejecting a rejected suggestion changes nothing and
	// returns changed=false.
	RejectSuggestion(ctx context.Context, id, by string, at time.Time,
		audit func(scouts.Suggestion) []scouts.AuditEvent) (s scouts.Suggestion, changed bool, err error)
	// UndoDecision puts a decided suggestion back to pending in one
	// transaction, deleting the entity its approval created. check is
	// called with the suggestion as stored and may refuse; undo is called
	// with what the decision left (UndoState) and returns the actions it
	// changed, the policies to write back and the events to write. It
	// returns the suggestion as it now is and the deleted entity, if any.
	UndoDecision(ctx context.Context, id string, check func(scouts.Suggestion) error,
		undo func(UndoState) UndoRecord) (scouts.Suggestion, *scouts.Entity, error)
	// MarkSpam decides a pending (or screened) suggestion is spam: it is
	// rejected into the Spam lane, which teaches the learner spam.
	MarkSpam(ctx context.Context, id string, at time.Time,
		audit func(scouts.Suggestion) []scouts.AuditEvent) (s scouts.Suggestion, changed bool, err error)
	// MoveLane moves a pending suggestion to another lane; rescue records
	// that the person brought it back (which teaches the learner). build
	// is called with the suggestion and its actions as stored and returns
	// the audit events and the actions the move queues in the outbox
	// (taking a brought-back mail out of Gmail's Trash), written with it in
	// one transaction. Moving to the lane it is in changes nothing.
	MoveLane(ctx context.Context, id string, to scouts.Lane, rescue scouts.Rescue, at time.Time,
		build func(scouts.Suggestion, []ActionRun) LaneRecord) (s scouts.Suggestion, changed bool, err error)

	// QueueActions adds actions to a suggestion whatever its status (an
	// unsubscription asked on its sender): build is called with it and
	// its actions as stored, and what it returns is written in one
	// transaction.
	QueueActions(ctx context.Context, id string, build func(scouts.Suggestion, []ActionRun) LaneRecord) (scouts.Suggestion, error)

	// LearnState returns a scout's learner header and settings (defaults
	// for a scout that has none yet).
	LearnState(ctx context.Context, scoutID string) (LearnState, error)
	// LearnCounts returns the stored counts of features in a scout's model.
	LearnCounts(ctx context.Context, scoutID string, hashes []uint64) ([]learn.Vec, error)
	// IdentitySeen returns how many recorded items of the scout came with
	// each of hashes (ItemRecord.Identities), 0 for unknown ones.
	IdentitySeen(ctx context.Context, scoutID string, hashes []uint64) ([]int, error)
	// SetLearnSettings stores a scout's learner thresholds.
	SetLearnSettings(ctx context.Context, scoutID string, s scouts.LearnSettings) error
	// ResetLearner forgets everything a scout's learner was taught.
	ResetLearner(ctx context.Context, scoutID string, at time.Time) error

	// SettleSilent settles up to limit of a scout's cards that silence
	// confirms: pending in Spam or Screened since before, never opened,
	// never settled, not put there by the person's rule. Each records the
	// lane it settled in (Suggestion.Silence) and teaches the learner
	// what Teaching says, with the audit events audit returns, in one
	// transaction. It returns the cards settled.
	SettleSilent(ctx context.Context, scoutID string, before, at time.Time, limit int,
		audit func(scouts.Suggestion) []scouts.AuditEvent) ([]scouts.Suggestion, error)
	// MarkOpened records that the person had a card's content in front of
	// them (the first time only); an unknown id is ENotFound.
	MarkOpened(ctx context.Context, id string, at time.Time) error
	// TeachSentTo records that the person wrote to address from a scout's
	// mailbox. The first time, in one transaction, the learner is taught
	// that mail from it is wanted (hashes: the address's sender feature)
	// and every pending card of the scout from that address waiting in
	// Screened or Spam moves to the inbox, with the audit events audit
	// returns (lifted are those cards, as they now are). It returns the
	// lifted cards; nothing when the address was known.
	TeachSentTo(ctx context.Context, scoutID, address string, hashes []uint64, at time.Time,
		audit func(lifted []scouts.Suggestion) []scouts.AuditEvent) ([]scouts.Suggestion, error)

	// ShowAnswered moves every pending card of the scout from address
	// that waits in Screened only because nobody answered its sender
	// (Assessment.Unanswered) to the inbox, with the audit events audit
	// returns, in one transaction. It returns those cards as they now are.
	ShowAnswered(ctx context.Context, scoutID, address string, at time.Time,
		audit func(moved []scouts.Suggestion) []scouts.AuditEvent) ([]scouts.Suggestion, error)

	// ExpireSuggestions marks pending suggestions whose ExpiresAt is not
	// after now as expired, auditing each, and returns them.
	ExpireSuggestions(ctx context.Context, now time.Time) ([]scouts.Suggestion, error)
	// SuggestionByRef returns the suggestion of one of a scout's items, by
	// its source ref; ENotFound when the item has none.
	SuggestionByRef(ctx context.Context, scoutID, ref string) (scouts.Suggestion, error)
	// ExpireSuggestion expires one pending suggestion because its source
	// said the item expired or withdrew it, auditing it with summary and
	// who did it (actor: "relay", "scout"); a decided one is left as it
	// is and changed is false.
	ExpireSuggestion(ctx context.Context, id string, at time.Time, actor, summary string) (s scouts.Suggestion, changed bool, err error)

	// Policies returns the user's action modes.
	Policies(ctx context.Context) (actions.Policies, error)
	// SetPolicies sets (or, with Mode "", removes) modes, with the audit
	// events, in one transaction.
	SetPolicies(ctx context.Context, changes []PolicyChange, audit ...scouts.AuditEvent) error
	// PlanDefaults returns the user's defaults for what cards propose
	// (DefaultPlanDefaults until set).
	PlanDefaults(ctx context.Context) (PlanDefaults, error)
	// SetPlanDefaults stores them, with the audit events.
	SetPlanDefaults(ctx context.Context, d PlanDefaults, audit ...scouts.AuditEvent) error

	// ActionRuns returns a suggestion's actions, by N.
	ActionRuns(ctx context.Context, suggestionID string) ([]ActionRun, error)
	// ActionRunsIn returns every action in a state, oldest first.
	ActionRunsIn(ctx context.Context, state ActionState) ([]ActionRun, error)
	// ActionsRunSince returns a scout's actions done or running whose
	// last change is not before since, oldest first: what the outbox's
	// gates look at before an attempt.
	ActionsRunSince(ctx context.Context, scoutID string, since time.Time) ([]ActionRun, error)
	// DueActions returns up to limit queued actions whose NextAt is not
	// after now, earliest first.
	DueActions(ctx context.Context, now time.Time, limit int) ([]ActionRun, error)
	// NextActionAt returns the earliest NextAt of the queued actions, zero
	// when none is queued.
	NextActionAt(ctx context.Context) (time.Time, error)
	// UpdateActionRun changes one action in a transaction: change gets it
	// as stored and returns it changed, with audit events to write, or an
	// error (ErrNoChange writes nothing) that is returned. An unknown key
	// is ENotFound.
	UpdateActionRun(ctx context.Context, key string, change func(ActionRun) (ActionRun, []scouts.AuditEvent, error)) (ActionRun, error)
	// FinishActionRun is UpdateActionRun that may also add actions to the
	// suggestion in the same transaction: change gets the action and all
	// of its suggestion's actions (by N), and returns the ones to add
	// (a plan's on_failure steps, added with the failure they follow).
	FinishActionRun(ctx context.Context, key string, change func(r ActionRun, all []ActionRun) (ActionRun, []ActionRun, []scouts.AuditEvent, error)) (ActionRun, error)
	// UpdateActionRuns is UpdateActionRun that may change other actions
	// of the same suggestion too: change gets the action and all of its
	// suggestion's actions, and returns every action it changed (the one
	// named by key among them), stored with the audit in one transaction.
	UpdateActionRuns(ctx context.Context, key string, change func(r ActionRun, all []ActionRun) ([]ActionRun, []scouts.AuditEvent, error)) (ActionRun, error)
	// FillEntityBody sets an entity's body to body, at at, when it is
	// still placeholder (the body it was approved with), and returns it;
	// filled is false when its body had changed. An entity that is gone
	// is ENotFound. The entity's BodyPending follows its FillBody step's
	// state, not this write.
	FillEntityBody(ctx context.Context, kind scouts.EntityKind, id, placeholder, body string, at time.Time) (e scouts.Entity, filled bool, err error)
}

// ItemRecord is one new item as the engine stores it.
type ItemRecord struct {
	Suggestion scouts.Suggestion
	Entity     *scouts.Entity // set when the scout auto-creates
	Audit      []scouts.AuditEvent
	// Features are the hashes of the item's features (learn.Hashes): what
	// the learner is taught when the person decides.
	Features []uint64
	// Participants are those of Features that name other people of the
	// conversation than the sender (the recipients): a spam verdict
	// teaches nothing about them (SparesParticipants).
	Participants []uint64
	// Identities are those of Features that say who sent the item (its
	// sender's address, its list): the store counts the items each came
	// with, for familiar senders (IdentitySeen).
	Identities []uint64
	// Actions are what a policy let run without a person: the plan of an
	// item created without review, actions rules proposed that are
	// allowed. Remote ones are queued in the outbox with the item.
	Actions []ActionRun
}

// LaneRecord is what a lane move writes with the suggestion's new lane.
type LaneRecord struct {
	Audit   []scouts.AuditEvent
	Actions []ActionRun
}

// RunResult is the outcome of one scout run.
type RunResult struct {
	At    time.Time
	New   int
	Error string
}
