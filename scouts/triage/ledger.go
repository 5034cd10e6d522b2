package triage

import (
	"context"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Ledger is a persisted count of model tokens per scout per UTC day,
// shared by every process that uses the same database. Reserve must be
// atomic (a single UPDATE … WHERE spent + tokens <= cap), so concurrent
// runs, in one process or several, never pass the cap together.
type Ledger interface {
	// Reserve adds tokens to the scout's day unless that would pass cap;
	// ok is false when it would.
	Reserve(ctx context.Context, scout, day string, cap, tokens int) (ok bool, err error)
	// Settle adds delta (negative: tokens given back) to the scout's day,
	// never below zero.
	Settle(ctx context.Context, scout, day string, delta int) error
	// Spent is what the scout's day has counted.
	Spent(ctx context.Context, scout, day string) (int, error)
}

// LedgerBudget is a Budget over a Ledger: the count survives restarts and
// is shared by every instance on the database.
type LedgerBudget struct {
	Ledger Ledger
	// Now is the clock (nil: time.Now); days are UTC days.
	Now func() time.Time
}

func (b LedgerBudget) day() string {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	return now().UTC().Format(time.DateOnly)
}

func (b LedgerBudget) Reserve(ctx context.Context, scout string, dailyCap, tokens int) (Reservation, bool, error) {
	if tokens < 0 || dailyCap < 0 {
		return Reservation{}, false, scouts.Errorf(scouts.EInvalid, "token budget: negative amount (cap %d, tokens %d)", dailyCap, tokens)
	}
	day := b.day()
	ok, err := b.Ledger.Reserve(ctx, scout, day, dailyCap, tokens)
	if err != nil || !ok {
		return Reservation{}, false, err
	}
	return Reservation{Scout: scout, Day: day, Tokens: tokens}, true, nil
}

func (b LedgerBudget) Commit(ctx context.Context, r Reservation, used int) error {
	if used < 0 {
		used = 0
	}
	if used == r.Tokens || r.Day == "" {
		return nil
	}
	// Settled on the reservation's own day, even after midnight: the
	// tokens were spent then.
	return b.Ledger.Settle(ctx, r.Scout, r.Day, used-r.Tokens)
}

// NextReset is when the UTC day of t ends: the daily caps start again.
func NextReset(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// Caps are a scout's own token caps under the global hard cap; zero
// fields mean none of its own.
type Caps struct {
	Day, Run int
}

// Refusal says why a reservation was refused: the scout's day or its run
// is spent.
type Refusal struct {
	Scout string
	// Run is set when the per-run cap refused (the day may have room).
	Run bool
	// Cap is the cap that refused; ResetAt when the day's starts again.
	Cap     int
	ResetAt time.Time
}

// CappedBudget applies each scout's own caps, and the per-run allowance of
// the run in progress (WithRunAllowance), in front of another Budget. The
// caller's dailyCap is the global hard cap: a scout's own cap only lowers
// it.
type CappedBudget struct {
	Inner Budget
	// Caps returns a scout's caps; nil or an error: the global cap only.
	Caps func(ctx context.Context, scout string) (Caps, error)
	// Refused, when set, hears every refusal (to show the scout as over
	// budget).
	Refused func(Refusal)
	Now     func() time.Time
}

func (b *CappedBudget) Reserve(ctx context.Context, scout string, dailyCap, tokens int) (Reservation, bool, error) {
	if b.Caps != nil {
		if c, err := b.Caps(ctx, scout); err == nil && c.Day > 0 && c.Day < dailyCap {
			dailyCap = c.Day
		}
	}
	run := runAllowanceFrom(ctx, scout)
	if run != nil && !run.reserve(tokens) {
		b.refused(Refusal{Scout: scout, Run: true, Cap: run.cap})
		return Reservation{}, false, nil
	}
	r, ok, err := b.Inner.Reserve(ctx, scout, dailyCap, tokens)
	if err != nil || !ok {
		if run != nil {
			run.settle(tokens, 0)
		}
		if err == nil {
			b.refused(Refusal{Scout: scout, Cap: dailyCap})
		}
		return Reservation{}, false, err
	}
	r.run = run
	return r, true, nil
}

func (b *CappedBudget) Commit(ctx context.Context, r Reservation, used int) error {
	if r.run != nil {
		r.run.settle(r.Tokens, max(used, 0))
	}
	return b.Inner.Commit(ctx, r, used)
}

func (b *CappedBudget) refused(r Refusal) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	r.ResetAt = NextReset(now())
	if b.Refused != nil {
		b.Refused(r)
	}
}

// runAllowance counts one run's tokens against its cap (0: none).
type runAllowance struct {
	scout string
	cap   int

	mu   sync.Mutex
	used int
}

func (a *runAllowance) reserve(tokens int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cap > 0 && a.used+tokens > a.cap {
		return false
	}
	a.used += tokens
	return true
}

func (a *runAllowance) settle(reserved, used int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.used += used - reserved
}

type runAllowanceKey struct{}

// WithRunAllowance gives the run carried by ctx a cap of runCap tokens for
// the scout (0: no per-run cap): every reservation CappedBudget makes for
// that scout under ctx counts against it, and RunTokens tells what the
// run spent.
func WithRunAllowance(ctx context.Context, scout string, runCap int) context.Context {
	return context.WithValue(ctx, runAllowanceKey{}, &runAllowance{scout: scout, cap: max(runCap, 0)})
}

// RunTokens is what the run carried by ctx has spent on the model for the
// scout so far (reservations in flight count as reserved); ok is false
// when ctx carries no allowance for the scout.
func RunTokens(ctx context.Context, scout string) (tokens int, ok bool) {
	a := runAllowanceFrom(ctx, scout)
	if a == nil {
		return 0, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used, true
}

func runAllowanceFrom(ctx context.Context, scout string) *runAllowance {
	a, _ := ctx.Value(runAllowanceKey{}).(*runAllowance)
	if a == nil || a.scout != scout {
		return nil
	}
	return a
}
