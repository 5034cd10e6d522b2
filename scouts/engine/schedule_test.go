package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

func TestScheduleValidate(t *testing.T) {
	for _, tc := range []struct {
		s    scouts.Schedule
		want string // "" valid, else part of the error
	}{
		{scouts.Schedule{}, ""},
		{scouts.Schedule{Overlap: scouts.OverlapSkip}, ""},
		{scouts.Schedule{Cron: "*/5 * * * *"}, ""},
		{scouts.Schedule{Cron: "0 9 * * 1-5", TimeZone: "Europe/Paris", Overlap: scouts.OverlapAllow, CatchUp: scouts.CatchUpSkip}, ""},
		{scouts.Schedule{Cron: "@every 5m"}, ""},
		{scouts.Schedule{Cron: "@daily"}, ""},
		{scouts.Schedule{Cron: "@every 1s"}, ""},
		// robfig/cron turns any interval under a second into one second:
		// these once saved as "every second".
		{scouts.Schedule{Cron: "@every -5m"}, "at least 1s"},
		{scouts.Schedule{Cron: "@every 0s"}, "at least 1s"},
		{scouts.Schedule{Cron: "@every 1ms"}, "at least 1s"},
		{scouts.Schedule{Cron: "@every 1500ms"}, "whole number of seconds"},
		{scouts.Schedule{Cron: "every day"}, "want five fields"},
		{scouts.Schedule{Cron: "0 0 0 * * *"}, "want five fields"},
		{scouts.Schedule{Cron: "0 9 31 2 *"}, "never fires"},
		{scouts.Schedule{Cron: "TZ=UTC 0 9 * * *"}, "time_zone"},
		{scouts.Schedule{Cron: "0 9 * * *", TimeZone: "Mars/Olympus"}, "not a known IANA time zone"},
		{scouts.Schedule{Cron: "0 9 * * *", TimeZone: "Local"}, "name a zone"},
		{scouts.Schedule{TimeZone: "UTC"}, "needs a cron expression"},
		{scouts.Schedule{Overlap: "sometimes"}, "want skip, queue-one or allow"},
		{scouts.Schedule{Cron: "@hourly", CatchUp: "all"}, "want skip or run-once"},
	} {
		err := engine.ValidateSchedule(tc.s)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.s, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one saying %q", tc.s, err, tc.want)
		case tc.want != "" && scouts.ErrorCode(err) != scouts.EInvalid:
			t.Errorf("%+v: code %q, want invalid", tc.s, scouts.ErrorCode(err))
		}
	}
}

// The expression is read in the schedule's zone, across a change of
// daylight saving time.
func TestScheduleNextInZone(t *testing.T) {
	s := scouts.Schedule{Cron: "0 9 * * *", TimeZone: "Europe/Paris"}
	// 2026-03-29 is the night Paris moves from UTC+1 to UTC+2.
	got := engine.NextScheduled(s, time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC))
	if want := time.Date(2026, 3, 29, 7, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("next 09:00 Paris after 28 March noon UTC: %s, want %s", got.UTC(), want)
	}
	if !engine.NextScheduled(scouts.Schedule{}, time.Now()).IsZero() {
		t.Fatal("a schedule without cron has a next time")
	}
	n, err := engine.NormalizeSchedule(scouts.Schedule{Cron: "@hourly"})
	if err != nil || n.Overlap != scouts.OverlapQueueOne || n.CatchUp != scouts.CatchUpRunOnce {
		t.Fatalf("Normalize: %+v %v, want the defaults spelt out", n, err)
	}
}
