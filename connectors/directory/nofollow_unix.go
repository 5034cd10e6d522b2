//go:build unix

package directory

import "syscall"

// openFlags are added when a file is opened for reading.
//
// O_NOFOLLOW refuses a file that was swapped for a symbolic link between
// its listing and its opening. (os.Root, through which every file is
// opened, sets it too and then follows a link that stays inside; the
// os.SameFile check after opening rejects that case as well.)
//
// O_NONBLOCK keeps the open from blocking if the file was swapped for a
// fifo; on regular files it has no effect.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
