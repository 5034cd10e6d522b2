package cue

import (
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// MorningHour is the time of day a day said without one stands for when
// the person picks a time ("next week", "Friday", "in 3 days"): the start
// of a working day, when a snoozed card is useful again.
const MorningHour = 9

// When reads a time the person typed — "in 3 hours", "tomorrow morning",
// "next week", "Friday 2pm", "15 December" or an RFC 3339 time — as an
// instant after now, in now's location. It uses the same reader as the
// dates found in content (olebedev/when behind this package's protections),
// so what a card proposes and what a person types agree. A day without a
// time of day is that day at MorningHour. Text with no time in it, or a
// time that is not after now, is EInvalid with words that say so.
func When(text string, now time.Time) (time.Time, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return time.Time{}, scouts.Errorf(scouts.EInvalid, "say when, e.g. \"in 3 hours\", \"tomorrow morning\", \"next week\" or 2026-12-01T09:00:00Z")
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return future(s, t, now)
	}
	hits := findDates(s, now)
	if len(hits) == 0 {
		return time.Time{}, scouts.Errorf(scouts.EInvalid, "cannot read a time in %q; try \"in 3 hours\", \"tomorrow morning\", \"next week\" or a date like \"15 December 9am\"", s)
	}
	h := hits[0]
	at := h.at
	if !h.timed {
		at = time.Date(at.Year(), at.Month(), at.Day(), MorningHour, 0, 0, 0, at.Location())
	}
	return future(s, at, now)
}

func future(s string, t, now time.Time) (time.Time, error) {
	if !t.After(now) {
		return time.Time{}, scouts.Errorf(scouts.EInvalid, "%q is %s, which is not in the future", s, t.Format("Mon 2 Jan 2006 15:04"))
	}
	return t, nil
}
