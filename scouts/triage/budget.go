package triage

import (
	"context"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// Budget keeps each scout's daily model token count. Reserve claims the
// worst case of a call before it is made and refuses when that would pass
// the scout's cap, so a day's total never exceeds the cap even when calls
// run concurrently; Commit then gives back what the call did not use.
//
// The relay backs it with its database (so that a restart does not reset
// the count); MemoryBudget is for the desktop and tests.
type Budget interface {
	// Reserve claims tokens of the scout's allowance for today. ok is false
	// when fewer than tokens remain under dailyCap.
	Reserve(ctx context.Context, scout string, dailyCap, tokens int) (r Reservation, ok bool, err error)
	// Commit settles a reservation with the tokens really used. A failed
	// Commit leaves the whole reservation counted: the error side is safe.
	Commit(ctx context.Context, r Reservation, used int) error
}

// Reservation is a claim made by Reserve.
type Reservation struct {
	Scout  string
	Day    string // UTC date, 2006-01-02
	Tokens int

	run *runAllowance // the run's allowance it also counts against (CappedBudget)
}

// MemoryBudget is a Budget held in memory. Days are UTC days.
type MemoryBudget struct {
	now func() time.Time

	mu   sync.Mutex
	day  string
	used map[string]int // scout → tokens counted today
}

// NewMemoryBudget returns an empty budget; now is the clock (nil: time.Now).
func NewMemoryBudget(now func() time.Time) *MemoryBudget {
	if now == nil {
		now = time.Now
	}
	return &MemoryBudget{now: now, used: map[string]int{}}
}

func (b *MemoryBudget) Reserve(_ context.Context, scout string, dailyCap, tokens int) (Reservation, bool, error) {
	if tokens < 0 || dailyCap < 0 {
		return Reservation{}, false, scouts.Errorf(scouts.EInvalid, "token budget: negative amount (cap %d, tokens %d)", dailyCap, tokens)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll()
	if b.used[scout]+tokens > dailyCap {
		return Reservation{}, false, nil
	}
	b.used[scout] += tokens
	return Reservation{Scout: scout, Day: b.day, Tokens: tokens}, true, nil
}

func (b *MemoryBudget) Commit(_ context.Context, r Reservation, used int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll()
	if r.Day != b.day {
		// The reservation belongs to a day that is over: nothing to settle.
		return nil
	}
	if used < 0 {
		used = 0
	}
	// Usage beyond the reservation (a server that ignored max_tokens) is
	// counted too: the figure stays honest even if the cap is then passed.
	b.used[r.Scout] += used - r.Tokens
	return nil
}

// Used returns the tokens counted today for the scout.
func (b *MemoryBudget) Used(scout string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll()
	return b.used[scout]
}

// roll starts a new day's counts when the UTC date changed.
func (b *MemoryBudget) roll() {
	day := b.now().UTC().Format(time.DateOnly)
	if day != b.day {
		b.day = day
		clear(b.used)
	}
}
