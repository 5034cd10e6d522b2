package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/scouts"
)

// newAlarms makes the alarms service on the database and the bus.
func (c *Core) newAlarms() {
	c.alarms = &alarms.Service{Store: c.DB, Emit: c.Bus.Publish, Now: c.now}
}

// engineEmit is what the engine announces: on the bus, and each finished
// run looked at for its scout's failing-runs alarm (raised after
// Config.FailedRunsAlarm failures in a row, resolved by a good run). It
// runs on the engine's goroutine after the run was recorded, so the
// history it reads includes the run.
func (c *Core) engineEmit(ev scouts.Event) {
	ctx := context.Background()
	switch ev.Type {
	case scouts.EventSuggestionCreated:
		// Held before it is announced: a held card never shows in the
		// inbox, not even for a moment.
		if sg, ok := ev.Data.(scouts.Suggestion); ok {
			ev.Data = c.holdNew(ctx, sg)
		}
	}
	c.Bus.Publish(ev)
	c.chainEvent(ev)
	switch ev.Type {
	case scouts.EventActionBlocked, scouts.EventActionUpdated:
		c.gateAlarm(ctx, ev)
		return
	case scouts.EventSuggestionResolved, scouts.EventSuggestionMoved:
		// A card decided (or moved out of the way) makes room.
		if sg, ok := ev.Data.(scouts.Suggestion); ok {
			c.letIn(ctx, sg.ScoutID)
		}
		return
	case scouts.EventScoutRun:
	default:
		return
	}
	d, _ := ev.Data.(map[string]any)
	id, _ := d["scout_id"].(string)
	if id == "" {
		return
	}
	c.checkRunsAlarm(ctx, id)
}

// checkRunsAlarm raises or resolves a scout's failing-runs alarm from its
// latest runs.
//
// Runs and the engine's other announcements of a scout's health come from
// more than one goroutine: the checks are one at a time, each reading the
// history as it is then, so that the last check decides from the last run
// (a check that read the history before a good run was recorded cannot
// raise the alarm again after the good run's check resolved it).
func (c *Core) checkRunsAlarm(ctx context.Context, scoutID string) {
	c.alarmsMu.Lock()
	defer c.alarmsMu.Unlock()
	s, err := c.DB.GetScout(ctx, scoutID)
	if err != nil {
		return // deleted meanwhile
	}
	n := c.cfg.FailedRunsAlarm
	if n <= 0 {
		n = alarms.DefaultFailedRuns
	}
	runs, err := c.DB.ListRuns(ctx, scoutID, 4*n)
	if err != nil {
		c.log.Warn("read runs for the failing-runs alarm", "scout", scoutID, "err", err)
		return
	}
	// A Gmail scout failing for its access has the access alarm, which
	// says what to do; the failing-runs alarm would say it twice.
	_, _, lastErr := alarms.FailingRuns(runs)
	if s.Kind == scouts.KindGmail {
		c.checkGmailAlarm(ctx, s, runs)
	}
	if s.Kind != scouts.KindGmail || !(gmaildesk.NeedsReconnect(lastErr) || gmaildesk.WatchNotRenewed(lastErr)) {
		if err := c.alarms.CheckRuns(ctx, scoutID, s.Name, runs, n); err != nil {
			c.log.Warn("failing-runs alarm", "scout", scoutID, "err", err)
		}
	}
	// The budget refilled (a new day) or was raised: the run just ended
	// could use the model again.
	if c.cfg.Model != nil && !c.BudgetStatus(ctx, s).Spent {
		if err := c.alarms.Resolve(ctx, BudgetAlarmKey(scoutID), s.Name+"'s model budget refilled"); err != nil {
			c.log.Warn("budget alarm", "scout", scoutID, "err", err)
		}
	}
}

// Alarms returns the live alarms, and the resolved ones kept if asked.
func (c *Core) Alarms(ctx context.Context, withResolved bool) ([]alarms.Alarm, error) {
	return c.alarms.List(ctx, withResolved)
}

// AckAlarm acknowledges an open alarm.
func (c *Core) AckAlarm(ctx context.Context, id string) (alarms.Alarm, error) {
	return c.alarms.Ack(ctx, id)
}

// AlarmService is the alarms service, for the services that raise and
// resolve their own.
func (c *Core) AlarmService() *alarms.Service { return c.alarms }

// WatchAlarmKey is the dedupe key of a Gmail scout's watch alarm.
func WatchAlarmKey(scoutID string) string { return alarms.KindWatch + ":" + scoutID }

// GmailAlarmKey is the dedupe key of a Gmail scout's access alarm.
func GmailAlarmKey(scoutID string) string { return alarms.KindGmailToken + ":" + scoutID }

// checkGmailAlarm raises a Gmail scout's access alarm at once when its
// latest run failed because the access expired or was revoked (no run
// will succeed until the account is reconnected), and resolves it after
// its next good run (a reconnect runs the account's scouts again).
func (c *Core) checkGmailAlarm(ctx context.Context, s scouts.Scout, latest []scouts.Run) {
	failed, ok, lastErr := alarms.FailingRuns(latest)
	var err error
	switch {
	case ok:
		err = errors.Join(c.alarms.Resolve(ctx, GmailAlarmKey(s.ID), "Gmail access is back for "+s.Name),
			c.alarms.Resolve(ctx, WatchAlarmKey(s.ID), "the mailbox's watch is set up again for "+s.Name))
	case failed > 0 && gmaildesk.WatchNotRenewed(lastErr):
		_, err = c.alarms.Raise(ctx, alarms.Alarm{Key: WatchAlarmKey(s.ID), Kind: alarms.KindWatch, Severity: alarms.Warning,
			ScoutID: s.ID, Message: fmt.Sprintf("%s: the mailbox's Gmail watch was not renewed (%s), so new mail is not announced. Check the relay's Pub/Sub topic and the account, then run the scout now.",
				s.Name, lastErr)})
	case failed > 0 && gmaildesk.NeedsReconnect(lastErr):
		_, err = c.alarms.Raise(ctx, alarms.Alarm{Key: GmailAlarmKey(s.ID), Kind: alarms.KindGmailToken, Severity: alarms.Critical,
			ScoutID: s.ID, Message: s.Name + ": Gmail access expired or was revoked. Reconnect the account (scouts gmail connect, or Settings → Gmail); the scout runs again then."})
	}
	if err != nil {
		c.log.Warn("Gmail access alarm", "scout", s.ID, "err", err)
	}
}
