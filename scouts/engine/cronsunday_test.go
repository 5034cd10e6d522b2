package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// 7 is Sunday in the day-of-week field, as 0 is (Vixie cron and most
// dialects accept both): alone, in a list, at the end of a range, with a
// step.
func TestCronSevenIsSunday(t *testing.T) {
	// Monday 4 May 2026, 10:00 UTC: the days of the next week are 4..10.
	from := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		cron string
		days string // the days of the month of the next runs
	}{
		{"0 9 * * 7", "10 17 24"},
		{"0 9 * * 0", "10 17 24"},
		{"0 9 * * 3,7", "6 10 13"},
		{"0 9 * * 5-7", "8 9 10"},
		{"0 9 * * 1-7/2", "6 8 10"},
		{"0 9 * * 0-7", "5 6 7"},
		{"0 9 * * 7-7", "10 17 24"},
	} {
		s := scouts.Schedule{Cron: tc.cron, TimeZone: "UTC"}
		if err := engine.ValidateSchedule(s); err != nil {
			t.Errorf("%q: %v", tc.cron, err)
			continue
		}
		var days []string
		at := from
		for range 3 {
			at = engine.NextScheduled(s, at)
			days = append(days, at.Format("2"))
		}
		if got := strings.Join(days, " "); got != tc.days {
			t.Errorf("%q runs on the %s, want the %s", tc.cron, got, tc.days)
		}
	}
	for _, bad := range []string{"0 9 * * 8", "0 9 * * 5-8", "0 9 * * 7/2"} {
		if err := engine.ValidateSchedule(scouts.Schedule{Cron: bad}); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
}
