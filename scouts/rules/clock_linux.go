package rules

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// ThreadClock measures the CPU time of the calling goroutine: it is
// pinned to its thread until stop, and the thread's CPU clock read. A busy
// machine (another process on every core) does not count against an
// evaluation, only the work it does; where the thread clock cannot be
// read, the wall clock measures instead.
func ThreadClock() (elapsed func() time.Duration, stop func()) {
	runtime.LockOSThread()
	start, ok := threadCPU()
	if !ok {
		runtime.UnlockOSThread()
		return WallClock()
	}
	return func() time.Duration {
		now, _ := threadCPU()
		return now - start
	}, runtime.UnlockOSThread
}

func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
