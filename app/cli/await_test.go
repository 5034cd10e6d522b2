package cli

import (
	"context"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localclient"
)

// awaitAgent waits until done reports true, re-checking it after each event
// of the agent's stream rather than polling. done is first checked once the
// stream is open, so a change made before that is read then, and every
// change after it comes with an event.
func awaitAgent(t *testing.T, c *localclient.Client, what string, done func() bool) {
	t.Helper()
	const limit = 30 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	w, err := c.Watch(ctx, 0)
	if err != nil {
		t.Fatalf("waiting for %s: open the event stream: %v", what, err)
	}
	defer func() { w.Close() }()
	for !done() {
		if _, err := w.Next(); err != nil {
			if ctx.Err() != nil {
				t.Fatalf("no %s within %s", what, limit)
			}
			// The agent cuts off a reader that falls behind: resume where
			// it stopped (a "reset" is one more event to re-check on).
			w.Close()
			if w, err = c.Watch(ctx, w.LastID()); err != nil {
				t.Fatalf("waiting for %s: reopen the event stream: %v", what, err)
			}
		}
	}
}
