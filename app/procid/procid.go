// Package procid names a process so that another one can later tell
// whether it is still alive: its id, the machine's boot and the process's
// start time (a process id alone may have been reused). Run locks record
// it for their stale-lock guard.
package procid

import (
	"fmt"
	"os"
)

// ID names a process.
type ID struct {
	PID int
	// BootID names the machine's boot; empty where it cannot be read.
	BootID string
	// Start is the process's start time as the system counts it; 0 where
	// it cannot be read.
	Start uint64
}

// Self names this process.
func Self() ID {
	pid := os.Getpid()
	return ID{PID: pid, BootID: bootID(), Start: startOf(pid)}
}

// Gone reports whether the process id names is provably dead, and why:
// the machine restarted since, or no process with its id and start time
// runs. When it cannot tell (another system, no /proc), it answers false
// and the caller relies on heartbeats.
func Gone(id ID) (bool, string) {
	self := Self()
	if id.BootID == "" || self.BootID == "" {
		return false, ""
	}
	if id.BootID != self.BootID {
		return true, "the machine has restarted since"
	}
	start := startOf(id.PID)
	switch {
	case start == 0 && !exists(id.PID):
		return true, fmt.Sprintf("process %d is gone", id.PID)
	case id.Start != 0 && start != 0 && start != id.Start:
		return true, fmt.Sprintf("process %d is gone (its id now names another process)", id.PID)
	}
	return false, ""
}
