package scouts

// Live event types, pushed to the stream as things happen.
const (
	EventSuggestionCreated  = "suggestion.created"
	EventSuggestionResolved = "suggestion.resolved"
	// EventSuggestionUndone: a decision was undone; the suggestion is
	// pending again.
	EventSuggestionUndone = "suggestion.undone"
	// EventSuggestionMoved: a pending suggestion changed lanes.
	EventSuggestionMoved = "suggestion.moved"
	EventEntityCreated   = "entity.created"
	EventEntityUpdated   = "entity.updated"
	EventEntityDeleted   = "entity.deleted"
	EventScoutUpdated    = "scout.updated"
	EventScoutDeleted    = "scout.deleted"
	EventScoutRun        = "scout.run"
)

// Live events of actions and policies.
const (
	// EventActionUpdated: one of a suggestion's actions changed state
	// (data: the engine's ActionRun).
	EventActionUpdated = "action.updated"
	// EventPolicyChanged: a mode was set or removed (data: the engine's
	// PolicyChange).
	EventPolicyChanged = "policy.changed"
	// EventPlanDefaultsChanged: data the engine's PlanDefaults.
	EventPlanDefaultsChanged = "plan_defaults.changed"
)

// Event is a change that live views want to hear about. Data is one of the
// domain types (Suggestion, Entity, Scout), one of the engine's (an action,
// a policy change) or a small map.
type Event struct {
	Type string
	Data any
}
