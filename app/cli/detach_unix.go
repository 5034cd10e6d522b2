//go:build !windows

package cli

import (
	"os"
	"os/exec"
	"syscall"
)

func detachProcess(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// execWindow becomes the window binary: the process the tray or the
// launcher started is the window, and closing it ends that process.
func execWindow(exe string, args []string) error {
	return syscall.Exec(exe, append([]string{exe}, args...), os.Environ())
}
