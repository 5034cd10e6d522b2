// Package watchtest is for tests that need a live folder watch: the
// machine's inotify instances are per user and shared with every other
// program of the user, so a test may find none left, and would otherwise
// only time out.
package watchtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
)

// Need fails the test at once, saying which limit is reached and how to
// raise it, when this machine cannot give it a live folder watch now (no
// inotify instance left for this user, or no watch). It opens and closes
// a watcher of its own.
func Need(t testing.TB) {
	t.Helper()
	if why := Why(t.TempDir()); why != "" {
		t.Fatal(why)
	}
}

// Why says why a live watch of dir cannot be had now ("" when it can).
func Why(dir string) string { return explain(watchhub.Probe(dir)) }

// explain words what Probe answered for a test's failure.
func explain(err error) string {
	var le *watchhub.LimitError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &le) && le.Sysctl == watchhub.SysctlInstances:
		return "this test needs a live folder watch, and the machine has no inotify instance left for this user: " + le.Error() +
			" (other programs of the user hold them all; `find /proc/*/fd -lname anon_inode:inotify` lists them)"
	case errors.As(err, &le):
		return "this test needs a live folder watch, and the machine has no inotify watch left for this user: " + le.Error()
	}
	return "this test needs a live folder watch, and none can be had: " + err.Error()
}

// Instances counts this process's inotify instances (its descriptors that
// link to anon_inode:inotify); the test is skipped where there is no
// /proc/self/fd to count them in.
func Instances(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd to count inotify instances in: %v", err)
	}
	n := 0
	for _, e := range ents {
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}
