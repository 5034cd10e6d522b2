// Package wake lets a test wait for state that another goroutine or
// process changes, by looking again each time something that may have
// changed it happens (an event of the agent's stream, a request a fake
// answered, a line a process logged) instead of polling on a timer. The
// zero Wake is ready to use.
package wake

import (
	"context"
	"reflect"
	"sync"
)

// Wake is a signal that fires any number of times; each waiter hears
// every fire that happens after it asked for Next.
type Wake struct {
	mu sync.Mutex
	ch chan struct{}
}

// Next returns a channel closed by the next Fire. Take it before looking
// at the state: a change between the look and the wait still wakes.
func (w *Wake) Next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

// Fire wakes everyone waiting on a channel from Next.
func (w *Wake) Fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}

// Source is a Next method: it returns a channel closed by the next thing
// that may change the state waited for.
type Source func() <-chan struct{}

// Until looks at cond, then again each time one of sources fires, until
// cond holds (nil) or ctx ends (ctx's error). Sources must fire after any
// change cond could see: an announcement made before the state it
// announces is visible would be missed.
func Until(ctx context.Context, cond func() bool, sources ...Source) error {
	cases := make([]reflect.SelectCase, len(sources)+1)
	cases[0] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}
	for {
		for i, s := range sources {
			cases[i+1] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s())}
		}
		if cond() {
			return nil
		}
		if i, _, _ := reflect.Select(cases); i == 0 {
			return ctx.Err()
		}
	}
}
