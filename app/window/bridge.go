package window

import (
	"context"
	"encoding/json"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// The Wails events the window emits; frontend/src/api/stream.ts listens
// to them (WAILS_EVENT, WAILS_STATE).
const (
	// EventStream carries each event of the agent's stream as a Message.
	EventStream = "scouts:stream"
	// EventStreamState carries the bridge's connection state: "connecting",
	// "open" or "down".
	EventStreamState = "scouts:stream-state"
)

// Message is the payload of an EventStream event.
type Message struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
	ID   int64           `json:"id"`
}

// Emit sends one event to the page. The window passes a function that
// calls the Wails runtime; nothing else in this package knows Wails.
type Emit func(name string, data any)

// Bridge subscribes to the agent's event stream and re-emits every event,
// and the state of its connection, until ctx ends. It reconnects by itself
// and resumes after the last event it saw.
func Bridge(ctx context.Context, c *localclient.Client, emit Emit) {
	c.Follow(ctx, func(ev apitype.StreamEvent) {
		data := ev.Data
		if len(data) == 0 || !json.Valid(data) {
			data = json.RawMessage("null")
		}
		emit(EventStream, Message{Type: ev.Type, Data: data, ID: ev.ID})
	}, func(s string) { emit(EventStreamState, s) })
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
