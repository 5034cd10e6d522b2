package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxDueDays bounds a relative due date (ten years).
const maxDueDays = 3650

// Due is a rule's due date: relative to when the item arrived ("+3d",
// "+2w", "+12h") or absolute ("2026-05-01", or an RFC 3339 time).
type Due struct {
	src   string
	days  int           // +Nd, +Nw: midnight N days after the arrival day
	hours time.Duration // +Nh: N hours after the arrival
	at    time.Time     // an absolute date or time
	date  bool          // at is a date: midnight, local time
	unit  byte          // h, d or w for a relative date
}

// ParseDue reads a due date.
func ParseDue(s string) (Due, error) {
	d := Due{src: s}
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "+"); ok && len(rest) >= 2 {
		unit := rest[len(rest)-1]
		n, err := strconv.Atoi(rest[:len(rest)-1])
		if err != nil || n < 0 {
			return d, fmt.Errorf("due %q: want +N followed by h, d or w (+3d)", clipMsg(s))
		}
		d.unit = unit
		switch unit {
		case 'h':
			if n > maxDueDays*24 {
				return d, fmt.Errorf("due %q is more than %d days away", clipMsg(s), maxDueDays)
			}
			d.hours = time.Duration(n) * time.Hour
		case 'd', 'w':
			if unit == 'w' {
				n *= 7
			}
			if n > maxDueDays {
				return d, fmt.Errorf("due %q is more than %d days away", clipMsg(s), maxDueDays)
			}
			d.days = n
		default:
			return d, fmt.Errorf("due %q: the unit is h (hours), d (days) or w (weeks)", clipMsg(s))
		}
		return d, nil
	}
	if at, err := time.Parse("2006-01-02", t); err == nil {
		d.at, d.date = at, true
		return d, nil
	}
	if at, err := time.Parse(time.RFC3339, t); err == nil {
		d.at = at
		return d, nil
	}
	return d, fmt.Errorf("due %q: want a relative date (+3d, +2w, +12h) or a date (2026-05-01, or 2026-05-01T09:00:00Z)", clipMsg(s))
}

// String returns the due date as written.
func (d Due) String() string { return d.src }

// IsZero reports an unset due date.
func (d Due) IsZero() bool { return d.src == "" }

// At resolves the due date for an item that arrived at ref, in loc.
func (d Due) At(ref time.Time, loc *time.Location) time.Time {
	switch {
	case d.IsZero():
		return time.Time{}
	case d.date:
		return time.Date(d.at.Year(), d.at.Month(), d.at.Day(), 0, 0, 0, 0, loc)
	case !d.at.IsZero():
		return d.at
	case d.unit == 'h':
		return ref.Add(d.hours)
	}
	r := ref.In(loc)
	return time.Date(r.Year(), r.Month(), r.Day()+d.days, 0, 0, 0, 0, loc)
}
