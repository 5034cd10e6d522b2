package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/scouts-hq/scouts/scouts"
)

// MaxParallelRuns bounds the runs of one scout in OverlapAllow: triggers
// past it wait, coalesced into one.
const MaxParallelRuns = 4

// cronParser reads the standard five fields and the descriptors. Seconds
// are not offered: no source is worth asking more than once a minute on a
// calendar (@every takes shorter intervals, for tests and fast sources).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// MinEvery is the shortest @every interval a schedule accepts.
const MinEvery = time.Second

// ValidateSchedule checks a schedule and fills nothing; see
// NormalizeSchedule. The schedule's type is the domain's; reading its cron
// expression is the engine's (robfig/cron), which runs it.
func ValidateSchedule(s scouts.Schedule) error {
	_, err := compileSchedule(s)
	return err
}

// NormalizeSchedule checks s and returns it with its defaults spelt out:
// overlap queue-one and, with a cron expression, catch-up run-once.
func NormalizeSchedule(s scouts.Schedule) (scouts.Schedule, error) {
	s.Cron = strings.TrimSpace(s.Cron)
	s.TimeZone = strings.TrimSpace(s.TimeZone)
	if err := ValidateSchedule(s); err != nil {
		return s, err
	}
	if s.Overlap == "" {
		s.Overlap = scouts.OverlapQueueOne
	}
	if s.CatchUp == "" && s.Cron != "" {
		s.CatchUp = scouts.CatchUpRunOnce
	}
	return s, nil
}

// compiled is a schedule ready to tell its next time.
type compiled struct {
	sched cron.Schedule
	loc   *time.Location
}

func compileSchedule(s scouts.Schedule) (*compiled, error) {
	switch s.Overlap {
	case "", scouts.OverlapSkip, scouts.OverlapQueueOne, scouts.OverlapAllow:
	default:
		return nil, scouts.Errorf(scouts.EInvalid, "schedule overlap %q: want skip, queue-one or allow", s.Overlap)
	}
	switch s.CatchUp {
	case "", scouts.CatchUpSkip, scouts.CatchUpRunOnce:
	default:
		return nil, scouts.Errorf(scouts.EInvalid, "schedule catch_up %q: want skip or run-once", s.CatchUp)
	}
	loc := time.Local
	if tz := strings.TrimSpace(s.TimeZone); tz != "" {
		if strings.EqualFold(tz, "local") {
			return nil, scouts.Errorf(scouts.EInvalid, "schedule time_zone: name a zone such as Europe/Paris or UTC, or leave it empty for this machine's zone")
		}
		l, err := time.LoadLocation(tz)
		if err != nil {
			return nil, scouts.Errorf(scouts.EInvalid, "schedule time_zone %q is not a known IANA time zone (such as Europe/Paris or UTC)", tz)
		}
		loc = l
	}
	expr := strings.TrimSpace(s.Cron)
	if expr == "" {
		if s.TimeZone != "" || s.CatchUp != "" {
			return nil, scouts.Errorf(scouts.EInvalid, "schedule: a time zone or catch-up policy needs a cron expression")
		}
		return nil, nil
	}
	if len(expr) > 200 {
		return nil, scouts.Errorf(scouts.EInvalid, "schedule cron is longer than 200 characters")
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, scouts.Errorf(scouts.EInvalid, "schedule cron: set the zone in time_zone, not in the expression")
	}
	// The interval is checked here: robfig/cron silently turns anything
	// under a second (0s, -5m) into one second and drops fractions.
	if rest, ok := strings.CutPrefix(expr, "@every "); ok {
		if d, err := time.ParseDuration(strings.TrimSpace(rest)); err == nil {
			if d < MinEvery {
				return nil, scouts.Errorf(scouts.EInvalid, "schedule cron %q: @every must be at least %s", expr, MinEvery)
			}
			if d%time.Second != 0 {
				return nil, scouts.Errorf(scouts.EInvalid, "schedule cron %q: @every takes a whole number of seconds", expr)
			}
		}
	}
	sched, err := cronParser.Parse(sundayAsZero(expr))
	if err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "schedule cron %q: %v (want five fields: minute hour day-of-month month day-of-week, e.g. \"*/15 * * * *\", or @hourly, @daily, @every 10m)", expr, err)
	}
	// A calendar with no date in it (31 February) never fires; say so
	// rather than wait forever.
	if sched.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, loc)).IsZero() {
		return nil, scouts.Errorf(scouts.EInvalid, "schedule cron %q never fires", expr)
	}
	return &compiled{sched: sched, loc: loc}, nil
}

// sundayAsZero spells a Sunday written 7 in the day-of-week field of a
// five-field expression as 0, the only Sunday robfig/cron knows (Vixie
// cron and most dialects take both): alone (7, 3,7, 7-7) or ending a range
// (5-7 is 5-6 and 0; 1-7/2 is 1-6/2 and 0, since its steps reach 7).
// Anything else is left for the parser to judge.
func sundayAsZero(expr string) string {
	f := strings.Fields(expr)
	if len(f) != 5 {
		return expr
	}
	parts := strings.Split(f[4], ",")
	for i, p := range parts {
		rng, step, stepped := strings.Cut(p, "/")
		lo, hi, ranged := strings.Cut(rng, "-")
		switch {
		case !ranged && !stepped && rng == "7":
			parts[i] = "0"
		case ranged && hi == "7" && lo == "7" && !stepped:
			parts[i] = "0"
		case ranged && hi == "7":
			from, err := strconv.Atoi(lo)
			if err != nil || from < 0 || from > 6 {
				continue
			}
			n := 1
			if stepped {
				if n, err = strconv.Atoi(step); err != nil || n < 1 {
					continue
				}
			}
			parts[i] = lo + "-6"
			if stepped {
				parts[i] += "/" + step
			}
			if (7-from)%n == 0 {
				parts[i] += ",0"
			}
		}
	}
	f[4] = strings.Join(parts, ",")
	return strings.Join(f, " ")
}

// NextScheduled is the first scheduled time of s strictly after t, or the
// zero time without a cron expression (or with an invalid one).
func NextScheduled(s scouts.Schedule, t time.Time) time.Time {
	c, err := compileSchedule(s)
	if err != nil || c == nil {
		return time.Time{}
	}
	return c.next(t)
}

func (c *compiled) next(t time.Time) time.Time {
	return c.sched.Next(t.In(c.loc))
}
