package localclient_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/internal/apitest"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/scouts"
)

// follower records what Follow hands over.
type follower struct {
	events chan apitype.StreamEvent
	states chan string
}

func follow(t *testing.T, c *localclient.Client) *follower {
	t.Helper()
	f := &follower{events: make(chan apitype.StreamEvent, 100), states: make(chan string, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Follow(ctx, func(ev apitype.StreamEvent) { f.events <- ev }, func(s string) { f.states <- s })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

// state waits for Follow to report state.
func (f *follower) state(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case s := <-f.states:
			if s == want {
				return
			}
		case <-deadline:
			t.Fatalf("Follow never reported %q", want)
		}
	}
}

// next waits for the next event Follow hands over.
func (f *follower) next(t *testing.T) apitype.StreamEvent {
	t.Helper()
	select {
	case ev := <-f.events:
		return ev
	case <-time.After(time.Minute):
		t.Fatal("no event within a minute")
		return apitype.StreamEvent{}
	}
}

// created reads the title of an entity.created event.
func created(t *testing.T, ev apitype.StreamEvent) string {
	t.Helper()
	if ev.Type != "entity.created" {
		t.Fatalf("event %s (%s), want entity.created", ev.Type, ev.Data)
	}
	var e apitype.Entity
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		t.Fatal(err)
	}
	return e.Title
}

// The agent's API goes away and comes back on its socket (the core, and
// its events, go on): Follow says the stream is down, reconnects, and
// resumes after the last event it saw (Last-Event-ID) — what happened
// meanwhile arrives once, in order, and nothing seen before comes again.
func TestFollowResumesAcrossARestart(t *testing.T) {
	ctx := context.Background()
	a := apitest.Start(t)
	f := follow(t, a.Client)
	f.state(t, localclient.StreamOpen)
	if ev := f.next(t); ev.Type != apitype.StreamHello {
		t.Fatalf("first event %s, want hello", ev.Type)
	}
	if _, err := a.Core.CreateEntity(ctx, scouts.Entity{Kind: scouts.EntityTask, Title: "before"}); err != nil {
		t.Fatal(err)
	}
	if got := created(t, f.next(t)); got != "before" {
		t.Fatalf("entity %q, want before", got)
	}

	a.Stop()
	f.state(t, localclient.StreamDown)
	for _, title := range []string{"while down 1", "while down 2"} {
		if _, err := a.Core.CreateEntity(ctx, scouts.Entity{Kind: scouts.EntityTask, Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	a.Serve()
	f.state(t, localclient.StreamOpen)
	if ev := f.next(t); ev.Type != apitype.StreamHello {
		t.Fatalf("first event after the restart %s, want hello", ev.Type)
	}
	for _, want := range []string{"while down 1", "while down 2"} {
		if got := created(t, f.next(t)); got != want {
			t.Fatalf("after the restart: entity %q, want %q (missed events replayed once, in order)", got, want)
		}
	}
	if _, err := a.Core.CreateEntity(ctx, scouts.Entity{Kind: scouts.EntityTask, Title: "after"}); err != nil {
		t.Fatal(err)
	}
	if got := created(t, f.next(t)); got != "after" {
		t.Fatalf("entity %q, want after", got)
	}
}
