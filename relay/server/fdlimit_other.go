//go:build !unix

package server

// openFilesLimit: no RLIMIT_NOFILE here; a generous fixed budget.
func openFilesLimit() uint64 { return 1 << 16 }
