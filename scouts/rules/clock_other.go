//go:build !linux

package rules

import "time"

// ThreadClock measures an evaluation on the wall clock where the thread's
// CPU clock is not read (see clock_linux.go).
func ThreadClock() (elapsed func() time.Duration, stop func()) { return WallClock() }
