package alarms_test

import (
	"testing"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/scouts"
)

// The failures in a row are counted from the newest run; runs that did not
// run (skipped, running, stopped) neither count nor break the streak, and a
// good run ends it.
func TestFailingRuns(t *testing.T) {
	run := func(o scouts.RunOutcome, err string) scouts.Run { return scouts.Run{Outcome: o, Error: err} }
	cases := []struct {
		name   string
		runs   []scouts.Run
		failed int
		ok     bool
		last   string
	}{
		{"none", nil, 0, false, ""},
		{"good", []scouts.Run{run(scouts.RunOK, "")}, 0, true, ""},
		{"three", []scouts.Run{run(scouts.RunFailed, "c"), run(scouts.RunFailed, "b"), run(scouts.RunFailed, "a")}, 3, false, "c"},
		{"skips between", []scouts.Run{run(scouts.RunFailed, "c"), run(scouts.RunSkipped, ""), run(scouts.RunFailed, "b"),
			run(scouts.RunRunning, ""), run(scouts.RunFailed, "a"), run(scouts.RunOK, "")}, 3, false, "c"},
		{"after a good run", []scouts.Run{run(scouts.RunFailed, "b"), run(scouts.RunOK, ""), run(scouts.RunFailed, "a")}, 1, false, "b"},
		{"good after skips", []scouts.Run{run(scouts.RunSkipped, ""), run(scouts.RunOK, ""), run(scouts.RunFailed, "a")}, 0, true, ""},
	}
	for _, c := range cases {
		failed, ok, last := alarms.FailingRuns(c.runs)
		if failed != c.failed || ok != c.ok || last != c.last {
			t.Errorf("%s: %d failed, ok %v, last %q; want %d, %v, %q", c.name, failed, ok, last, c.failed, c.ok, c.last)
		}
	}
}
