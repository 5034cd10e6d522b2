package watchtest

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/scouts-hq/scouts/connectors/directory/watchhub"
)

// A test that cannot have a live watch says which limit the machine
// reached and how to raise it, not "context deadline exceeded".
func TestExplainNamesTheLimit(t *testing.T) {
	for _, c := range []struct {
		err  error
		want []string
	}{
		{&watchhub.LimitError{Sysctl: watchhub.SysctlInstances, Value: 128, Err: syscall.EMFILE},
			[]string{"no inotify instance left", "fs.inotify.max_user_instances = 128", "sudo sysctl fs.inotify.max_user_instances=512"}},
		{fmt.Errorf("watchhub: watch x: %w", &watchhub.LimitError{Sysctl: watchhub.SysctlWatches, Value: 8192, Err: syscall.ENOSPC}),
			[]string{"no inotify watch left", "sudo sysctl fs.inotify.max_user_watches=524288"}},
		{syscall.EACCES, []string{"none can be had", "permission denied"}},
	} {
		got := explain(c.err)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("explain(%v) = %q; want it to say %q", c.err, got, w)
			}
		}
	}
	if got := explain(nil); got != "" {
		t.Errorf("explain(nil) = %q; want nothing to say", got)
	}
}
