package scouts

import "strings"

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
	// up to the engine's MaxParallelRuns; items stay unique per scout and
	// source ref, so overlapping runs never make duplicates.
	OverlapAllow Overlap = "allow"
)

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
// watched, every poll interval; its overlap is queue-one. The engine reads
// and checks the cron expression (engine.ValidateSchedule): its parser is a
// library the domain does not import.
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
