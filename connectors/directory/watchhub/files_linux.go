package watchhub

import (
	"os"
	"syscall"
)

// outOfFiles reports whether the process has used up its own limit on
// open files, which makes opening a watcher fail with EMFILE too: that is
// not inotify's limit, and raising the sysctl would not help.
func outOfFiles() bool {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return false
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return false
	}
	// The listing itself holds one descriptor; leave a little room for
	// descriptors closed meanwhile.
	return uint64(len(ents))+2 >= lim.Cur
}
