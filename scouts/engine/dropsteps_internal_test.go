package engine

import (
	"slices"
	"testing"
)

// TestWaitingOnFindsTheWholeChain: dropping a step drops the queued steps
// that wait for it, directly or through another step, and nothing else —
// not a step already done, not an independent action, not the steps of
// another chain.
func TestWaitingOnFindsTheWholeChain(t *testing.T) {
	all := []ActionRun{
		{N: 1, State: ActionDone},              // the card's own entity
		{N: 2, State: ActionFailed},            // the step dropped
		{N: 3, After: 2, State: ActionQueued},  // waits for 2
		{N: 4, After: 3, State: ActionQueued},  // waits for 3, so for 2
		{N: 5, State: ActionQueued},            // independent
		{N: 6, After: 5, State: ActionQueued},  // another chain
		{N: 7, After: 2, State: ActionDropped}, // already dropped
		{N: 8, After: 4, State: ActionQueued},  // waits for 4, so for 2
	}
	var got []int
	for _, r := range waitingOn(2, all) {
		got = append(got, r.N)
	}
	if want := []int{3, 4, 8}; !slices.Equal(got, want) {
		t.Fatalf("waiting on step 2: %v, want %v", got, want)
	}
	if w := waitingOn(6, all); len(w) != 0 {
		t.Fatalf("waiting on the last step of a chain: %v", w)
	}
}
