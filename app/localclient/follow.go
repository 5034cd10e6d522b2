package localclient

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Connection states reported by Follow.
const (
	StreamConnecting = "connecting"
	StreamOpen       = "open"
	StreamDown       = "down"
)

// Follow reads the agent's event stream until ctx ends: on gets every
// event, state (which may be nil) each change of the connection. When the
// connection drops, Follow reconnects with backoff and resumes after the
// last event it saw (the agent replays what was missed, or sends "reset"
// when it no longer has it). Each new connection starts with "hello".
func (c *Client) Follow(ctx context.Context, on func(apitype.StreamEvent), state func(string)) {
	if state == nil {
		state = func(string) {}
	}
	var lastID int64
	failures := 0
	for ctx.Err() == nil {
		state(StreamConnecting)
		w, err := c.Watch(ctx, lastID)
		if err == nil {
			failures = 0
			state(StreamOpen)
			for {
				ev, err := w.Next()
				if err != nil {
					break
				}
				if ev.ID > 0 {
					lastID = ev.ID
				}
				on(ev)
			}
			w.Close()
		}
		if ctx.Err() != nil {
			return
		}
		state(StreamDown)
		failures++
		t := time.NewTimer(followBackoff(failures))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// followBackoff is the delay before the n-th reconnection in a row: quick
// at first (a restarting agent answers within a second), then 5 s at most.
func followBackoff(n int) time.Duration {
	return min(100*time.Millisecond<<min(n-1, 6), 5*time.Second)
}
