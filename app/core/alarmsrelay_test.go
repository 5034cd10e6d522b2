package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
)

// A relay unreachable for longer than the core's RelayAlarmAfter (here a
// nanosecond: the second failed attempt is past it, whatever the clock)
// raises one alarm naming the relay; the relay back resolves it.
func TestAnUnreachableRelayRaisesAnAlarmUntilItIsBack(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	r := g.StartRelay(t)
	d := g.OpenDesktop(t, t.TempDir(), gmailtest.DesktopOptions{RelayURL: r.URL, RelayToken: r.Token, RelayAlarmAfter: time.Nanosecond})
	online := func() bool { return d.Core.Relay().Status(ctx).State == "online" }
	d.Until("the relay online", online)
	relayAlarm := func(status alarms.Status) func() bool {
		return func() bool {
			list, err := d.Core.Alarms(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range list {
				if a.Kind == alarms.KindRelayDown && a.Status == status {
					return true
				}
			}
			return false
		}
	}
	explain := func() string { return fmt.Sprint(d.Core.Alarms(ctx, true)) }
	if relayAlarm(alarms.Open)() {
		t.Fatal("an alarm while the relay is online")
	}
	r.Stop()
	d.Until("the relay's alarm", relayAlarm(alarms.Open), explain)
	r.Start()
	d.Until("the relay's alarm resolved", relayAlarm(alarms.Resolved), explain)
	if live, _ := d.Core.Alarms(ctx, false); len(live) != 0 {
		t.Fatalf("live once the relay is back: %+v", live)
	}
}
