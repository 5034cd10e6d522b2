//go:build unix

package evaluate

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used so far,
// over all its threads.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
