//go:build unix

package server

import "syscall"

// openFilesLimit is the process's open-files limit (RLIMIT_NOFILE; Go
// raises the soft limit to the hard one at start).
func openFilesLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 1 << 16
	}
	return rl.Cur
}
