package core

import (
	"context"
	"fmt"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// GateAlarmKey is the dedupe key of a scout's alarm for one gate of the
// outbox: however many actions the gate blocks, the scout has one alarm
// of it, brought up to date with the latest block.
func GateAlarmKey(gate, scoutID string) string { return "gate_" + gate + ":" + scoutID }

// gateAlarm raises the scout's alarm when a gate blocks one of its
// actions, and resolves the storm alarm once one of its posts runs again
// (the hour has room). A flap alarm stays until the person acknowledges
// it: the rules that fought are theirs to look at.
func (c *Core) gateAlarm(ctx context.Context, ev scouts.Event) {
	switch d := ev.Data.(type) {
	case scouts.ActionBlock:
		name := d.ScoutID
		if s, err := c.DB.GetScout(ctx, d.ScoutID); err == nil {
			name = s.Name
		}
		kind, msg := alarms.KindActionFlap, fmt.Sprintf("%s: %s was %s — its rules or its source may be undoing each other; see the card, then retry or drop it.",
			name, d.Action, d.Why)
		if d.Gate == scouts.GateStorm {
			kind, msg = alarms.KindActionStorm, fmt.Sprintf("%s: %s was %s — the scout posts more than its cap allows (learning.notify_per_hour); see its cards, then retry or drop them.",
				name, d.Action, d.Why)
		}
		if _, err := c.alarms.Raise(ctx, alarms.Alarm{Key: GateAlarmKey(d.Gate, d.ScoutID), Kind: kind, Severity: alarms.Warning,
			ScoutID: d.ScoutID, Message: msg}); err != nil {
			c.log.Warn("gate alarm", "scout", d.ScoutID, "err", err)
		}
	case engine.ActionRun:
		if d.State != engine.ActionDone || d.Action != actions.WebhookPost {
			return
		}
		if err := c.alarms.Resolve(ctx, GateAlarmKey(scouts.GateStorm, d.ScoutID), "a post of the scout ran again: the hour has room"); err != nil {
			c.log.Warn("gate alarm", "scout", d.ScoutID, "err", err)
		}
	}
}
