package core

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/procid"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// runSettings is the core's side of schedules and budgets: the run lock's
// holder (this process) and the model budget's refusals, kept to show a
// scout as over budget.
type runSettings struct {
	mu       sync.Mutex
	refusals map[string]triage.Refusal // scout id → latest refusal
}

// runState is the engine's RunState: locks and schedule times in the
// database, held by this process.
func (c *Core) runState() engine.RunState {
	self := procid.Self()
	h := localdb.LockHolder{PID: self.PID, BootID: self.BootID, Start: self.Start, Instance: scouts.NewID("in")}
	return c.DB.RunState(localdb.RunStateOptions{Holder: h, StaleAfter: c.cfg.LockStaleAfter,
		Gone: func(o localdb.LockHolder) (bool, string) {
			return procid.Gone(procid.ID{PID: o.PID, BootID: o.BootID, Start: o.Start})
		}})
}

// setupRuns wires what schedules, budgets and secrets need before the
// engine is built.
func (c *Core) setupRuns() {
	if c.cfg.Secrets == nil && c.cfg.SecretStore != nil {
		c.cfg.Secrets = c.cfg.SecretStore.Secret
	}
	c.setupBudget()
}

// setupBudget puts the model's token budget on the database (the ledger
// survives restarts) behind each scout's own caps. A budget given in the
// configuration (tests) is kept as the ledger.
func (c *Core) setupBudget() {
	if c.cfg.Model == nil {
		return
	}
	inner := c.cfg.ModelBudget
	if inner == nil {
		inner = triage.LedgerBudget{Ledger: c.DB, Now: c.now}
	}
	c.cfg.ModelBudget = &triage.CappedBudget{Inner: inner, Now: c.now,
		Caps: func(ctx context.Context, scoutID string) (triage.Caps, error) {
			s, err := c.DB.GetScout(ctx, scoutID)
			if err != nil {
				return triage.Caps{}, err
			}
			return triage.Caps{Day: s.Budget.DayCap(c.cfg.ModelDailyTokens), Run: s.Budget.RunCap(c.cfg.ModelDailyTokens)}, nil
		},
		Refused: c.budgetRefused}
}

// runContext gives a run its scout's per-run token allowance, which also
// counts what the run spends (runTokens).
func (c *Core) runContext(ctx context.Context, s scouts.Scout) context.Context {
	return triage.WithRunAllowance(ctx, s.ID, s.Budget.RunCap(c.cfg.ModelDailyTokens))
}

// runTokens is what a run spent on the model, for its history; unknown
// without a model.
func (c *Core) runTokens(ctx context.Context, s scouts.Scout) (int, bool) {
	if c.cfg.Model == nil {
		return 0, false
	}
	return triage.RunTokens(ctx, s.ID)
}

// ScoutRuns returns a scout's latest runs, newest first (limit <= 0:
// every run its history keeps).
func (c *Core) ScoutRuns(ctx context.Context, scoutID string, limit int) ([]scouts.Run, error) {
	if _, err := c.DB.GetScout(ctx, scoutID); err != nil {
		return nil, err
	}
	return c.DB.ListRuns(ctx, scoutID, limit)
}

// budgetRefused records that a scout's model budget is spent and tells the
// window, once per scout per day (and per run for run caps).
func (c *Core) budgetRefused(r triage.Refusal) {
	c.runs.mu.Lock()
	if c.runs.refusals == nil {
		c.runs.refusals = map[string]triage.Refusal{}
	}
	prev, seen := c.runs.refusals[r.Scout]
	c.runs.refusals[r.Scout] = r
	c.runs.mu.Unlock()
	if seen && prev.Run == r.Run && prev.ResetAt.Equal(r.ResetAt) {
		return // already said today
	}
	ctx := context.Background()
	s, err := c.DB.GetScout(ctx, r.Scout)
	if err != nil {
		return
	}
	st := c.BudgetStatus(ctx, s)
	c.log.Info("model budget spent; the scout uses rules and the learner only", "scout", r.Scout, "run", r.Run, "cap", r.Cap,
		"resets", r.ResetAt)
	if !r.Run {
		_, err := c.alarms.Raise(ctx, alarms.Alarm{Key: BudgetAlarmKey(r.Scout), Kind: alarms.KindBudgetSpent, Severity: alarms.Warning,
			ScoutID: r.Scout, Message: fmt.Sprintf("%s: %s. Raise its daily budget in the scout's settings if it needs the model before then.",
				s.Name, st.Message)})
		if err != nil {
			c.log.Warn("budget alarm", "scout", r.Scout, "err", err)
		}
	}
	if !seen || !prev.ResetAt.Equal(r.ResetAt) || prev.Run != r.Run {
		ev := scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageRun, Type: AuditBudgetSpent, Outcome: scouts.OutcomeSkipped,
			Summary: st.Message, Refs: map[string]string{"scout_id": r.Scout, "actor": "scout"}, At: c.now()}
		if err := c.DB.AppendAudit(ctx, ev); err != nil {
			c.log.Warn("audit a spent model budget", "scout", r.Scout, "err", err)
		}
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
}

// BudgetAlarmKey is the dedupe key of a scout's spent-budget alarm.
func BudgetAlarmKey(scoutID string) string { return alarms.KindBudgetSpent + ":" + scoutID }

// AuditBudgetSpent is audited when a scout's model budget refuses a call.
const AuditBudgetSpent = "scout.budget_spent"

// BudgetStatus is a scout's model budget as its card and Status show it.
type BudgetStatus struct {
	// DayCap and RunCap are the caps in force (RunCap 0: none per run).
	DayCap, RunCap int
	SpentToday     int
	// Spent: the day's cap refused a call, so the scout runs on rules and
	// its learner until ResetsAt. RunSpent: its last run hit the run cap.
	Spent    bool
	RunSpent bool
	ResetsAt time.Time
	// Message says so in words ("" when there is nothing to say).
	Message string
}

// BudgetStatus reports a scout's model budget; the zero value without a
// model.
func (c *Core) BudgetStatus(ctx context.Context, s scouts.Scout) BudgetStatus {
	if c.cfg.Model == nil {
		return BudgetStatus{}
	}
	now := c.now()
	day := now.UTC().Format(time.DateOnly)
	st := BudgetStatus{DayCap: s.Budget.DayCap(c.cfg.ModelDailyTokens), RunCap: s.Budget.RunCap(c.cfg.ModelDailyTokens),
		ResetsAt: triage.NextReset(now)}
	if l, ok := c.ledger(); ok {
		st.SpentToday, _ = l.Spent(ctx, s.ID, day)
	}
	c.runs.mu.Lock()
	r, refused := c.runs.refusals[s.ID]
	c.runs.mu.Unlock()
	reset := st.ResetsAt.Format("15:04") + " UTC"
	switch {
	case refused && !r.Run && r.ResetAt.Equal(st.ResetsAt), st.DayCap > 0 && st.SpentToday >= st.DayCap:
		st.Spent = true
		st.Message = fmt.Sprintf("model budget spent (%d of %d tokens today) — rules and learner only until %s", st.SpentToday, st.DayCap, reset)
	case refused && r.Run && r.ResetAt.Equal(st.ResetsAt):
		st.RunSpent = true
		st.Message = fmt.Sprintf("the last run used its model budget of %d tokens; the rest of it used rules and the learner only", r.Cap)
	}
	return st
}

// ledger is the persisted ledger when the budget counts in the database.
func (c *Core) ledger() (triage.Ledger, bool) {
	cb, ok := c.cfg.ModelBudget.(*triage.CappedBudget)
	if !ok {
		return nil, false
	}
	lb, ok := cb.Inner.(triage.LedgerBudget)
	return lb.Ledger, ok
}

// checkRunSettings validates a scout's schedule and budget and spells out
// the schedule's defaults. A budget above the global hard cap is refused:
// a definition may only lower it.
func (c *Core) checkRunSettings(s *scouts.Scout) error {
	sched, err := engine.NormalizeSchedule(s.Schedule)
	if err != nil {
		return err
	}
	if !sched.HasCron() && s.Schedule.Overlap == "" {
		sched.Overlap = "" // a scout without a schedule keeps "{}"
	}
	s.Schedule = sched
	hard := 0
	if c.cfg.Model != nil {
		hard = c.cfg.ModelDailyTokens
	}
	return s.Budget.Validate(hard)
}

// NextRun is when a scout with a cron schedule runs next (zero without).
func (c *Core) NextRun(s scouts.Scout) time.Time {
	if !s.Enabled || !s.Schedule.HasCron() {
		return time.Time{}
	}
	return engine.NextScheduled(s.Schedule, c.now())
}

// ModelHardCap is the global daily token cap per scout (0 without a model).
func (c *Core) ModelHardCap() int {
	if c.cfg.Model == nil {
		return 0
	}
	return c.cfg.ModelDailyTokens
}

// SpentBudget is a scout whose model budget is spent, for Status.
type SpentBudget struct {
	Scout  scouts.Scout
	Status BudgetStatus
}

// SpentBudgets lists the scouts running on rules and their learner only
// because their model budget is spent.
func (c *Core) SpentBudgets(ctx context.Context) ([]SpentBudget, error) {
	if c.cfg.Model == nil {
		return nil, nil
	}
	all, err := c.DB.ListScouts(ctx)
	if err != nil {
		return nil, err
	}
	var out []SpentBudget
	for _, s := range all {
		if st := c.BudgetStatus(ctx, s); st.Spent {
			out = append(out, SpentBudget{Scout: s, Status: st})
		}
	}
	return out, nil
}
