package gmaildesk_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
)

// A Gmail scout whose access is revoked at Google raises its alarm at its
// first failed run (no later run can succeed), saying to reconnect; after
// the account is reconnected, the scout's next good run resolves it.
func TestARevokedGmailGrantRaisesAnAlarmUntilReconnected(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	d, _ := g.OpenConnected(t, gmaildesk.Local)
	sc := d.NewScout(gmaildesk.Local)
	d.WaitBaseline(nil, sc.ID)
	rt, err := d.Auth.M.RefreshToken(gmailtest.Account)
	if err != nil {
		t.Fatal(err)
	}
	g.OAuth.Revoke(rt)
	g.Gmail.RevokeAll(gmailtest.Account)
	key := core.GmailAlarmKey(sc.ID)
	alarm := func(status alarms.Status) func() bool {
		return func() bool {
			list, err := d.Core.Alarms(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range list {
				if a.Key == key && a.Status == status {
					return true
				}
			}
			return false
		}
	}
	// The scout polls too: it fails again and again, and says so once,
	// in the access alarm alone (not also as failing runs).
	failed := 0
	d.Until("three failed runs and the revoked grant's alarm", func() bool {
		runs, err := d.Core.ScoutRuns(ctx, sc.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		failed, _, _ = alarms.FailingRuns(runs)
		if failed < 3 {
			d.Core.Engine.Trigger(sc.ID)
		}
		return failed >= 3 && alarm(alarms.Open)()
	}, func() string { return fmt.Sprint(failed, " failed; ", fmt.Sprint(d.Core.Alarms(ctx, true))) })
	if live, _ := d.Core.Alarms(ctx, false); len(live) != 1 || live[0].Key != key {
		t.Fatalf("live alarms: %+v, want the access alarm alone", live)
	}

	g.Gmail.Restore(gmailtest.Account)
	if _, err := d.Core.ConnectGmail(ctx, false); err != nil {
		t.Fatal(err)
	}
	d.Until("the alarm resolved after reconnecting", alarm(alarms.Resolved), func() string { return fmt.Sprint(d.Core.Alarms(ctx, true)) })
	if live, _ := d.Core.Alarms(ctx, false); len(live) != 0 {
		t.Fatalf("live after reconnecting: %+v", live)
	}
}

// A relay-ping scout whose mailbox's watch cannot be set up (Google
// refuses the call) raises the watch alarm; once the watch call succeeds
// again the scout's next good run resolves it.
func TestAWatchNotRenewedRaisesAnAlarmUntilItIs(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	g.Gmail.Fail(gmailtest.Account, "watch", 400, -1, 0)
	d, _ := g.OpenConnected(t, gmaildesk.RelayPing)
	sc := d.NewScout(gmaildesk.RelayPing)
	key := core.WatchAlarmKey(sc.ID)
	alarm := func(status alarms.Status) func() bool {
		return func() bool {
			list, err := d.Core.Alarms(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range list {
				if a.Key == key && a.Status == status {
					return true
				}
			}
			d.Core.Engine.Trigger(sc.ID)
			return false
		}
	}
	explain := func() string { return fmt.Sprint(d.Core.Alarms(ctx, true)) }
	d.Until("the watch alarm", alarm(alarms.Open), explain)
	g.Gmail.Fail(gmailtest.Account, "watch", 0, 0, 0)
	d.Until("the watch alarm resolved", alarm(alarms.Resolved), explain)
}
