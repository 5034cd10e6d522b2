//go:build unix

package definition

import (
	"os"
	"syscall"
)

// openFolderFileFlags open a definition file without waiting on it: a
// named pipe opens at once instead of when a writer comes, and a terminal
// is never made the agent's.
const openFolderFileFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
