//go:build !windows

package window

import (
	"os/exec"
	"syscall"
)

// detach puts the child in its own session: no controlling terminal, no
// signals meant for our process group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
