package evaluate

import (
	"context"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// settle runs the engine's implicit feedback (engine.SettleSilent) at
// at, and records which of the cards the user left alone it settled.
func (t *timeline) settle(ctx context.Context, b int, at time.Time) error {
	n, err := t.p.engine.SettleSilent(ctx, at)
	if err != nil {
		return err
	}
	if n == 0 {
		if t.o.Trace != nil {
			t.o.Trace(TraceEvent{Batch: b, Settle: true, At: at})
		}
		return nil
	}
	t.taught = true
	var names []string
	still := t.pending[:0]
	for _, c := range t.pending {
		s, err := t.p.db.GetSuggestion(ctx, c.id)
		if err != nil {
			return err
		}
		if s.Silence == "" {
			still = append(still, c)
			continue
		}
		names = append(names, c.ref)
		switch s.Silence {
		case scouts.LaneSpam:
			t.rep.Person.SettledSpam++
		case scouts.LaneScreened:
			t.rep.Person.SettledScreened++
			if c.spam {
				t.rep.Person.SettledScreenedSpam++
			}
		}
	}
	t.pending = still
	if t.o.Trace != nil {
		t.o.Trace(TraceEvent{Batch: b, Settle: true, At: at, Settled: names})
	}
	return nil
}
