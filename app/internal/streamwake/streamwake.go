// Package streamwake lets a test wait on a running agent's state without
// polling it: the agent announces every change of what its local API
// answers on its event stream, once the change is visible there, so a
// test looks again after each event.
package streamwake

import (
	"context"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/internal/wake"
)

// Follow opens the agent's stream and fires w after each of its events
// until ctx ends or the agent goes; a stream dropped for falling behind
// resumes after its last event, and one whose missed events the agent no
// longer has is reported through errorf. It returns once the stream is
// open, so that a look taken after it cannot miss a change; done closes
// when following ends.
func Follow(ctx context.Context, c *localclient.Client, w *wake.Wake, errorf func(string, ...any)) (done <-chan struct{}, err error) {
	st, err := c.Watch(ctx, 0)
	if err != nil {
		return nil, err
	}
	d := make(chan struct{})
	go func() {
		defer close(d)
		for {
			ev, err := st.Next()
			w.Fire()
			if err == nil {
				if ev.Type == apitype.StreamReset {
					errorf("streamwake: the agent's stream lost events after id %d: %s", st.LastID(), ev.Data)
					return
				}
				continue
			}
			st.Close()
			if ctx.Err() != nil {
				return
			}
			if st, err = c.Watch(ctx, st.LastID()); err != nil {
				return // the agent is gone
			}
		}
	}()
	return d, nil
}
