package core

import (
	"context"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/relaylink"
)

// DefaultRelayAlarmAfter is how long the relay may stay unreachable before
// its alarm is raised: short outages (a laptop's sleep, a restart of the
// relay) say so in the tray's icon only.
const DefaultRelayAlarmAfter = time.Hour

// relayAlarmKey is the dedupe key of the relay's alarm (one relay per
// desktop).
const relayAlarmKey = alarms.KindRelayDown

// relayAlarmLoop follows the relay link's state on the bus until ctx
// ends: once the relay has been unreachable (offline or still connecting)
// for Config.RelayAlarmAfter since it was last online, the next state the
// link reports (each retry reports one) raises the alarm; online again
// resolves it. The outage's start is kept here: the link's Since is its
// latest attempt's.
//
// sub is subscribed before the link starts, so that its first states are
// heard.
func (c *Core) relayAlarmLoop(ctx context.Context, sub *bus.Subscription) {
	defer func() { sub.Close() }()
	after := c.cfg.RelayAlarmAfter
	if after <= 0 {
		after = DefaultRelayAlarmAfter
	}
	var down time.Time // zero: not down
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-sub.C:
			if !ok {
				// Dropped for falling behind: follow again; the next state
				// is a new reading.
				sub, _, _ = c.Bus.Subscribe(0, 64)
				continue
			}
			st, isState := m.Event.Data.(relaylink.Status)
			if m.Event.Type != relaylink.EventState || !isState {
				continue
			}
			switch {
			case st.State == "online" || !st.Configured:
				down = time.Time{}
				if err := c.alarms.Resolve(ctx, relayAlarmKey, "the relay is reachable again"); err != nil {
					c.log.Warn("relay alarm", "err", err)
				}
			case st.State == "offline" || st.State == "connecting":
				now := c.now()
				if down.IsZero() {
					down = now
				}
				if now.Sub(down) < after {
					continue
				}
				_, err := c.alarms.Raise(ctx, alarms.Alarm{Key: relayAlarmKey, Kind: alarms.KindRelayDown, Severity: alarms.Warning,
					Message: fmt.Sprintf("The relay %s has been unreachable since %s (%s). Decisions wait in the outbox; check the network or the relay, or log out of it in Settings → Relay.",
						st.URL, down.Format(time.RFC3339), st.Error)})
				if err != nil {
					c.log.Warn("relay alarm", "err", err)
				}
			}
		}
	}
}
