package watchhub

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// The sysctls that bound inotify per user.
const (
	SysctlInstances = "fs.inotify.max_user_instances"
	SysctlWatches   = "fs.inotify.max_user_watches"
)

// LimitError is a watch the system refused for want of a per-user inotify
// resource: an instance (EMFILE when the watcher opens) or a watch
// (ENOSPC when a directory is added).
type LimitError struct {
	Sysctl string // SysctlInstances or SysctlWatches
	Value  int    // the limit now (0: unknown)
	Err    error  // what the system answered
}

func (e *LimitError) Error() string {
	what := "inotify instances"
	if e.Sysctl == SysctlWatches {
		what = "inotify watches"
	}
	now := ""
	if e.Value > 0 {
		now = fmt.Sprintf(" (%s = %d)", e.Sysctl, e.Value)
	}
	return fmt.Sprintf("the system's limit on %s per user%s is reached, shared with every other program of this user: "+
		"changes are found by the periodic rescan only; raise it with `%s`", what, now, e.Command())
}

func (e *LimitError) Unwrap() error { return e.Err }

// Command is the command that raises the limit (until the next boot; a
// file in /etc/sysctl.d keeps it).
func (e *LimitError) Command() string {
	floor := 512
	if e.Sysctl == SysctlWatches {
		floor = 524288
	}
	return fmt.Sprintf("sudo sysctl %s=%d", e.Sysctl, max(2*e.Value, floor))
}

// classify turns the system's answer to opening a watcher (opening) or
// adding a watch into a *LimitError when it is one of inotify's per-user
// limits; other errors are returned as they are.
func classify(err error, opening bool) error {
	var le *LimitError
	switch {
	case errors.As(err, &le):
		return err
	case opening && errors.Is(err, syscall.EMFILE) && !outOfFiles():
		return &LimitError{Sysctl: SysctlInstances, Value: sysctl(SysctlInstances), Err: err}
	case !opening && errors.Is(err, syscall.ENOSPC):
		return &LimitError{Sysctl: SysctlWatches, Value: sysctl(SysctlWatches), Err: err}
	}
	return err
}

// sysctl reads an integer sysctl (0 when it cannot be read).
func sysctl(name string) int {
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// Probe says whether a watcher can be had now and can watch dir: nil, a
// *LimitError naming the limit that is reached, or another error. It
// opens and closes a watcher of its own. Tests that need a live watch
// call it to say why they cannot have one.
func Probe(dir string) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return classify(err, true)
	}
	defer fw.Close()
	if err := fw.Add(dir); err != nil {
		return classify(err, false)
	}
	return nil
}
