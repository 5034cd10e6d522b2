package cue

import (
	"testing"
	"time"
)

func TestWhenReadsWhatPeopleType(t *testing.T) {
	// Friday 27 November 2026, 10:15 in Paris.
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	now := time.Date(2026, 11, 27, 10, 15, 0, 0, loc)
	for _, c := range []struct{ in, want string }{
		{"in 3 hours", "2026-11-27 13:15"},
		{"in 30 minutes", "2026-11-27 10:45"},
		{"tomorrow morning", "2026-11-28 08:00"},
		{"tomorrow", "2026-11-28 09:00"},
		{"next week", "2026-11-30 09:00"},
		{"in 3 days", "2026-11-30 09:00"},
		{"monday 2pm", "2026-11-30 14:00"},
		{"15 December", "2026-12-15 09:00"},
		{"December 15 at 4pm", "2026-12-15 16:00"},
		{"2026-12-01T09:00:00Z", "2026-12-01 10:00"},
	} {
		got, err := When(c.in, now)
		if err != nil {
			t.Errorf("When(%q): %v", c.in, err)
			continue
		}
		if s := got.In(loc).Format("2006-01-02 15:04"); s != c.want {
			t.Errorf("When(%q) = %s, want %s", c.in, s, c.want)
		}
	}
}

func TestWhenRefusesWhatIsNotAFutureTime(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 15, 0, 0, time.UTC)
	for _, in := range []string{"", "whenever", "yesterday", "2020-01-01T00:00:00Z"} {
		if got, err := When(in, now); err == nil {
			t.Errorf("When(%q) = %v, want an error", in, got)
		}
	}
}
