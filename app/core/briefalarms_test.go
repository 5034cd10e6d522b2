package core_test

import (
	"context"
	"testing"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/coretest"
)

// TestTheBriefListsOpenAlarms: an alarm raised since the last brief is in
// the brief (and makes it worth sending), acknowledged it is still listed,
// resolved it is gone.
func TestTheBriefListsOpenAlarms(t *testing.T) {
	ctx := context.Background()
	c, _ := coretest.Open(t, core.Config{DataDir: t.TempDir()})
	b, err := c.Brief(ctx)
	if err != nil || len(b.Alarms) != 0 || b.New {
		t.Fatalf("a quiet brief: %d alarms, new %v (%v)", len(b.Alarms), b.New, err)
	}
	a, err := c.AlarmService().Raise(ctx, alarms.Alarm{Key: "relay_unreachable", Kind: alarms.KindRelayDown,
		Message: "The relay has been unreachable for an hour."})
	if err != nil {
		t.Fatal(err)
	}
	b, err = c.Brief(ctx)
	if err != nil || len(b.Alarms) != 1 || b.Alarms[0].ID != a.ID || !b.New {
		t.Fatalf("brief with an alarm raised: %+v new %v (%v)", b.Alarms, b.New, err)
	}
	if _, ok, err := c.SendBrief(ctx); err != nil || !ok {
		t.Fatalf("a brief with an alarm was not sent: %v", err)
	}
	if _, err := c.AckAlarm(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if b, err = c.Brief(ctx); err != nil || len(b.Alarms) != 1 || b.Alarms[0].Status != alarms.Acknowledged {
		t.Fatalf("brief with the alarm acknowledged: %+v (%v)", b.Alarms, err)
	}
	if err := c.AlarmService().Resolve(ctx, "relay_unreachable", "back"); err != nil {
		t.Fatal(err)
	}
	if b, err = c.Brief(ctx); err != nil || len(b.Alarms) != 0 {
		t.Fatalf("brief with the alarm resolved: %+v (%v)", b.Alarms, err)
	}
}
