package scouts

import (
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Overlap says what a trigger does while the scout is already running
// (seed 004's no-overlap scheduling).
type Overlap string

const (
	// OverlapSkip drops a trigger that arrives during a run (audited):
	// the next one after the run does the work.
	OverlapSkip Overlap = "skip"
	// OverlapQueueOne keeps at most one run waiting behind the current
	// one, however many triggers arrive: a burst is one more run. The
	// default, and what every scout did before schedules.
	OverlapQueueOne Overlap = "queue-one"
	// OverlapAllow starts each trigger's run at once, beside the others,
	// up to MaxParallelRuns; items stay unique per scout and source ref,
	// so overlapping runs never make duplicates.
	OverlapAllow Overlap = "allow"
)

// MaxParallelRuns bounds the runs of one scout in OverlapAllow: triggers
// past it wait, coalesced into one.
const MaxParallelRuns = 4

// CatchUp says what a scheduled scout does at start when a scheduled run
// was missed while the agent was off.
type CatchUp string

const (
	// CatchUpRunOnce runs once at start for all the runs missed (the
	// default).
	CatchUpRunOnce CatchUp = "run-once"
	// CatchUpSkip waits for the next scheduled time.
	CatchUpSkip CatchUp = "skip"
)

// Schedule is when a scout runs by itself and how its runs may overlap.
// The zero Schedule has no cron: the scout runs when its source says
// something arrived (a folder's watch) and, for sources that cannot be
// watched, every poll interval; its overlap is queue-one.
type Schedule struct {
	// Cron is a five-field cron expression (minute hour day-of-month month
	// day-of-week) or a descriptor (@hourly, @daily, @every 5m); empty:
	// no schedule.
	Cron string
	// TimeZone is the IANA zone the expression is read in (Europe/Paris);
	// empty: the machine's local zone.
	TimeZone string
	Overlap  Overlap
	CatchUp  CatchUp
}

// cronParser reads the standard five fields and the descriptors. Seconds
// are not offered: no source is worth asking more than once a minute on a
// calendar (@every takes shorter intervals, for tests and fast sources).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// MinEvery is the shortest @every interval a schedule accepts.
const MinEvery = time.Second

// Validate checks a schedule and fills nothing; see Normalize.
func (s Schedule) Validate() error {
	_, err := s.compile()
	return err
}

// Normalize checks s and returns it with its defaults spelt out: overlap
// queue-one and, with a cron expression, catch-up run-once.
func (s Schedule) Normalize() (Schedule, error) {
	s.Cron = strings.TrimSpace(s.Cron)
	s.TimeZone = strings.TrimSpace(s.TimeZone)
	if err := s.Validate(); err != nil {
		return s, err
	}
	if s.Overlap == "" {
		s.Overlap = OverlapQueueOne
	}
	if s.CatchUp == "" && s.Cron != "" {
		s.CatchUp = CatchUpRunOnce
	}
	return s, nil
}

// HasCron reports whether the scout runs on a calendar of its own.
func (s Schedule) HasCron() bool { return strings.TrimSpace(s.Cron) != "" }

// OverlapOrDefault is the overlap policy in force.
func (s Schedule) OverlapOrDefault() Overlap {
	if s.Overlap == "" {
		return OverlapQueueOne
	}
	return s.Overlap
}

// CatchUpOrDefault is the catch-up policy in force.
func (s Schedule) CatchUpOrDefault() CatchUp {
	if s.CatchUp == "" {
		return CatchUpRunOnce
	}
	return s.CatchUp
}

// compiled is a schedule ready to tell its next time.
type compiled struct {
	sched cron.Schedule
	loc   *time.Location
}

func (s Schedule) compile() (*compiled, error) {
	switch s.Overlap {
	case "", OverlapSkip, OverlapQueueOne, OverlapAllow:
	default:
		return nil, Errorf(EInvalid, "schedule overlap %q: want skip, queue-one or allow", s.Overlap)
	}
	switch s.CatchUp {
	case "", CatchUpSkip, CatchUpRunOnce:
	default:
		return nil, Errorf(EInvalid, "schedule catch_up %q: want skip or run-once", s.CatchUp)
	}
	loc := time.Local
	if tz := strings.TrimSpace(s.TimeZone); tz != "" {
		if strings.EqualFold(tz, "local") {
			return nil, Errorf(EInvalid, "schedule time_zone: name a zone such as Europe/Paris or UTC, or leave it empty for this machine's zone")
		}
		l, err := time.LoadLocation(tz)
		if err != nil {
			return nil, Errorf(EInvalid, "schedule time_zone %q is not a known IANA time zone (such as Europe/Paris or UTC)", tz)
		}
		loc = l
	}
	expr := strings.TrimSpace(s.Cron)
	if expr == "" {
		if s.TimeZone != "" || s.CatchUp != "" {
			return nil, Errorf(EInvalid, "schedule: a time zone or catch-up policy needs a cron expression")
		}
		return nil, nil
	}
	if len(expr) > 200 {
		return nil, Errorf(EInvalid, "schedule cron is longer than 200 characters")
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, Errorf(EInvalid, "schedule cron: set the zone in time_zone, not in the expression")
	}
	// The interval is checked here: robfig/cron silently turns anything
	// under a second (0s, -5m) into one second and drops fractions.
	if rest, ok := strings.CutPrefix(expr, "@every "); ok {
		if d, err := time.ParseDuration(strings.TrimSpace(rest)); err == nil {
			if d < MinEvery {
				return nil, Errorf(EInvalid, "schedule cron %q: @every must be at least %s", expr, MinEvery)
			}
			if d%time.Second != 0 {
				return nil, Errorf(EInvalid, "schedule cron %q: @every takes a whole number of seconds", expr)
			}
		}
	}
	sched, err := cronParser.Parse(sundayAsZero(expr))
	if err != nil {
		return nil, Errorf(EInvalid, "schedule cron %q: %v (want five fields: minute hour day-of-month month day-of-week, e.g. \"*/15 * * * *\", or @hourly, @daily, @every 10m)", expr, err)
	}
	// A calendar with no date in it (31 February) never fires; say so
	// rather than wait forever.
	if sched.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, loc)).IsZero() {
		return nil, Errorf(EInvalid, "schedule cron %q never fires", expr)
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

// Next is the first scheduled time strictly after t, or the zero time
// without a cron expression (or with an invalid one).
func (s Schedule) Next(t time.Time) time.Time {
	c, err := s.compile()
	if err != nil || c == nil {
		return time.Time{}
	}
	return c.next(t)
}

func (c *compiled) next(t time.Time) time.Time {
	return c.sched.Next(t.In(c.loc))
}

// Budget caps the model tokens a scout spends. Zero fields mean "the
// global cap": the agent's (or relay's) --llm-daily-tokens, a hard cap no
// scout can raise.
type Budget struct {
	// RunTokens caps one run (every model call made while the scout
	// handles what one trigger found).
	RunTokens int
	// DayTokens caps a UTC day.
	DayTokens int
}

// MaxBudgetTokens bounds any token figure a scout can be given.
const MaxBudgetTokens = 1_000_000_000

// Validate checks the budget against the global hard cap (0: none known,
// for example on a desktop without a model): a scout may only lower it.
func (b Budget) Validate(hardCap int) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"run_tokens", b.RunTokens}, {"day_tokens", b.DayTokens}} {
		if f.v < 0 {
			return Errorf(EInvalid, "budget %s cannot be negative (got %d); 0 means the global cap", f.name, f.v)
		}
		if f.v > MaxBudgetTokens {
			return Errorf(EInvalid, "budget %s %d is above %d", f.name, f.v, MaxBudgetTokens)
		}
		if hardCap > 0 && f.v > hardCap {
			return Errorf(EInvalid, "budget %s %d is above the global hard cap of %d tokens a day per scout (the agent's --llm-daily-tokens); a scout can only lower it", f.name, f.v, hardCap)
		}
	}
	if b.RunTokens > 0 && b.DayTokens > 0 && b.RunTokens > b.DayTokens {
		return Errorf(EInvalid, "budget run_tokens %d is above day_tokens %d: one run could never spend it", b.RunTokens, b.DayTokens)
	}
	return nil
}

// DayCap is the daily cap in force under the global hard cap: the scout's
// own when it set one below the global, else the global.
func (b Budget) DayCap(hardCap int) int {
	if b.DayTokens > 0 && (hardCap <= 0 || b.DayTokens < hardCap) {
		return b.DayTokens
	}
	return hardCap
}

// RunCap is the per-run cap in force (0: none but the day's).
func (b Budget) RunCap(hardCap int) int {
	if b.RunTokens > 0 && (hardCap <= 0 || b.RunTokens < hardCap) {
		return b.RunTokens
	}
	return 0
}
