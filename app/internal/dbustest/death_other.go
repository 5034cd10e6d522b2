//go:build !linux

package dbustest

import "syscall"

func deathSignal() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
