package wake_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/scouts-hq/scouts/internal/wake"
)

// A change made by another goroutine, announced by a fire, ends the wait;
// looks happen only at the start and after fires, never on a timer.
func TestUntilLooksAgainAfterEachFire(t *testing.T) {
	var w wake.Wake
	var n, looks atomic.Int64
	looked := make(chan struct{}, 10)
	done := make(chan error, 1)
	go func() {
		done <- wake.Until(context.Background(), func() bool {
			looks.Add(1)
			looked <- struct{}{}
			return n.Load() == 3
		}, w.Next)
	}()
	<-looked
	for range 3 {
		n.Add(1)
		w.Fire()
		<-looked
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := looks.Load(); got != 4 {
		t.Fatalf("%d looks, want 4: the first and one per fire", got)
	}
}

// A fire between the look and the wait is not lost: Next was taken
// before the look.
func TestAFireDuringTheLookStillWakes(t *testing.T) {
	var w wake.Wake
	first := true
	err := wake.Until(context.Background(), func() bool {
		if first {
			first = false
			w.Fire() // the change lands while the state is being read
			return false
		}
		return true
	}, w.Next)
	if err != nil {
		t.Fatal(err)
	}
}

// Any of several sources wakes the wait; an ended context ends it with
// the context's error.
func TestUntilHearsEverySourceAndTheContext(t *testing.T) {
	var a, b wake.Wake
	var ok atomic.Bool
	looked := make(chan struct{}, 4)
	done := make(chan error, 1)
	go func() {
		done <- wake.Until(context.Background(), func() bool { looked <- struct{}{}; return ok.Load() }, a.Next, b.Next)
	}()
	<-looked
	ok.Store(true)
	b.Fire()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- wake.Until(ctx, func() bool { looked <- struct{}{}; return false }, a.Next) }()
	<-looked
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
}
