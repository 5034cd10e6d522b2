package evaluate

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// settleFunc is the engine's implicit feedback (engine.SettleSilent).
type settleFunc func(ctx context.Context, now time.Time) (int, error)

// settler returns the engine's implicit feedback, when it has one.
func (p *product) settler() (settleFunc, bool) { return nil, false }

// silenceDays is the scout's grace period.
func silenceDays(scouts.LearnSettings) int { return 7 }

// settle runs implicit feedback at at and records what it settled.
func (t *timeline) settle(ctx context.Context, b int, f settleFunc, at time.Time) error { return nil }
