package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/internal/streamwake"
	"github.com/scouts-hq/scouts/internal/wake"
)

// waitOn waits for cond, looking again each time one of on fires — an
// event of the agent's stream (agentProc.changed), a call the fake Gmail
// answered (gmailfake's Next), a line a relay logged (its stderr's Next),
// a request a test's gate let in — and fails after a minute saying what
// explain sees. A source must fire after the change cond looks for.
func waitOn(t testing.TB, on []wake.Source, what string, cond func() bool, explain ...func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := wake.Until(ctx, cond, on...); err != nil {
		var why []string
		for _, e := range explain {
			why = append(why, e())
		}
		t.Fatalf("timed out after a minute waiting for %s %s", what, strings.Join(why, "; "))
	}
}

// on lists the sources a wait looks again on.
func on(sources ...wake.Source) []wake.Source { return sources }

// changed is a source that fires after each event of the agent's stream:
// the agent announces every change of what its API answers once it is
// visible there. The stream opens on the first call, before the first
// look.
func (a *agentProc) changed() wake.Source {
	a.watching.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		done, err := streamwake.Follow(ctx, a.client, &a.changes, a.t.Errorf)
		if err != nil {
			cancel()
			a.t.Fatalf("watching the agent's stream: %v", err)
		}
		a.t.Cleanup(func() { cancel(); <-done })
	})
	return a.changes.Next
}

// logged is a source that fires after each line a process writes to its
// log.
func (r *relayProc) logged() wake.Source { return r.stderr.Next }

// poll looks at cond every 20 ms for a minute: only for state that
// nothing announces to the test (another process's counter), each call
// saying why.
func poll(t testing.TB, what string, cond func() bool, explain ...func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			var why []string
			for _, e := range explain {
				why = append(why, e())
			}
			t.Fatalf("timed out after a minute waiting for %s %s", what, strings.Join(why, "; "))
		}
		<-tick.C
	}
}
