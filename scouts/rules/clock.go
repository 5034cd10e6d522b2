package rules

import "time"

// WallClock measures an evaluation on the monotonic wall clock.
func WallClock() (elapsed func() time.Duration, stop func()) {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }, func() {}
}
