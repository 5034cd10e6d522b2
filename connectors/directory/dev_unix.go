//go:build unix

package directory

import (
	"io/fs"
	"syscall"
)

// devOf is the device an entry lives on: a folder on another device than
// its parent is a mount point.
func devOf(info fs.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}
