//go:build !unix

package evaluate

import "time"

// cpuTime is not measured on this system: throughput is reported from
// wall time instead, and says so.
func cpuTime() (time.Duration, bool) { return 0, false }
