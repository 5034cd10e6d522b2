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

// Event is a change that live views want to hear about. Data is one of the
// domain types (Suggestion, Entity, Scout) or a small map.
type Event struct {
	Type string
	Data any
}
