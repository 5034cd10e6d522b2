//go:build !linux

package secretstest

import "syscall"

func deathSignal() *syscall.SysProcAttr { return nil }
