package rules

import (
	"fmt"
	"time"
)

// Budget is what one item's evaluation by a scout's rules may spend.
type Budget struct {
	// Steps is the cost model's budget; 0 is ItemBudget.
	Steps int
	// Time is the CPU time; 0 is ItemTime.
	Time time.Duration
	// Clock measures the time; nil is ThreadClock.
	Clock Clock
}

// Clock starts measuring an evaluation on the calling goroutine: it
// returns how to read the time spent since, and how to end the measure.
type Clock func() (elapsed func() time.Duration, stop func())

// clockEvery is how many steps are charged between two readings of the
// clock: reading it costs a system call, and a cheap condition costs less.
const clockEvery = 1 << 20

// itemMeter reads an item's clock while its rules are evaluated.
//
// Why the time bound holds: Go's regexp cannot be interrupted mid-match,
// so the clock is read between conditions — before a condition runs, once
// the steps charged since the last reading, the condition's own included,
// reach clockEvery. Every condition's cost is bounded when its rule is
// saved (MaxRuleCost steps on the longest values its field holds, which
// evaluation never exceeds: values are cut to their field's limit, again
// after lower-casing; and a costly regex is measured then on worst-case
// texts at no more than probeSlack times its model). So past the last
// reading within the limit, at most clockEvery steps plus one condition
// run: an item's rules take at most Time plus about 0.1 s (a few times
// that where the model misjudges by the probe's slack) before they stop.
type itemMeter struct {
	elapsed func() time.Duration
	limit   time.Duration
	since   int
}

// timeUp charges n steps about to be spent and reports whether the item's
// time has run out, reading the clock once every clockEvery steps.
func (m *itemMeter) timeUp(n int) bool {
	if m == nil {
		return false
	}
	m.since += n
	if m.since < clockEvery {
		return false
	}
	m.since = 0
	return m.elapsed() > m.limit
}

// Match is what a scout's rules made of one item.
type Match struct {
	// Rule is the first enabled rule whose filter is true, nil if none.
	Rule   *Compiled
	Result Result
	// TooSlow is the rule the item's budget ran out on, nil if it did
	// not: that rule and the ones after it were not tried, and the item is
	// taken as no rule matched it. OutOfTime says it was the clock that ran
	// out, not the steps.
	TooSlow   *Compiled
	OutOfTime bool
	// Steps is what the evaluation charged.
	Steps int
	// Notes say what could not be tried.
	Notes []string
}

// MatchWithin returns the first enabled rule whose filter is true for
// the item, within the budget. trusted names a rule the source's own
// triage already matched (the relay applies the rules it can express, on
// fields this desktop may not see): it is taken as matched when its turn
// comes.
func (s Set) MatchWithin(it *Item, trusted string, b Budget) Match {
	steps := b.Steps
	if steps <= 0 {
		steps = ItemBudget
	}
	limit := b.Time
	if limit <= 0 {
		limit = ItemTime
	}
	clock := b.Clock
	if clock == nil {
		clock = ThreadClock
	}
	elapsed, stop := clock()
	defer stop()
	m := &itemMeter{elapsed: elapsed, limit: limit}
	left := steps
	for i, c := range s {
		if !c.Rule.IsEnabled() {
			continue
		}
		if trusted != "" && c.Rule.ID == trusted {
			return Match{Rule: c, Result: Result{Truth: True, Why: "matched where the mail was triaged (" + c.Describe() + ")"}, Steps: steps - left}
		}
		r := c.evaluate(it, &left, m)
		if r.Truth == True {
			return Match{Rule: c, Result: r, Steps: steps - left}
		}
		if r.Spent {
			what := fmt.Sprintf("its evaluation budget (%d steps)", steps)
			if r.OutOfTime {
				what = fmt.Sprintf("its evaluation time (%v of CPU)", limit)
			}
			note := fmt.Sprintf("rule “%s” was too slow for this item: %s ran out on it; it and the %d rule(s) after it were not tried, and the item was taken as no rule matched it",
				c.Rule.ID, what, len(s)-i-1)
			return Match{TooSlow: c, OutOfTime: r.OutOfTime, Result: r, Steps: steps - left, Notes: []string{note}}
		}
	}
	return Match{Steps: steps - left}
}
