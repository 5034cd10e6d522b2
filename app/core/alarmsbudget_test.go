package core_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

// A scout whose day's model budget is spent raises one alarm saying until
// when and what to do; the first run after the budget refilled (the next
// day, on a clock skipped ahead) resolves it.
func TestASpentBudgetRaisesAnAlarmUntilItRefills(t *testing.T) {
	srv := triagetest.New(catKey, catModel)
	t.Cleanup(srv.Close)
	m, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: catModel, APIKey: catKey})
	if err != nil {
		t.Fatal(err)
	}
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir(), Model: m, ModelDailyTokens: 100_000, Now: clock})
	ctx := context.Background()
	docs := t.TempDir()
	dropFile(t, docs, "a.txt", "Please review the contract by Friday.")
	s := folderScout(t, c, docs, scouts.Budget{DayTokens: 1})
	key := core.BudgetAlarmKey(s.ID)
	raised := waitFor(t, sub, "the spent budget's alarm", alarmEvent(alarms.EventRaised, key)).Data.(alarms.Alarm)
	if raised.ScoutID != s.ID || !strings.Contains(raised.Message, "Raise its daily budget") {
		t.Fatalf("raised: %+v", raised)
	}
	waitFor(t, sub, "the run that spent it", ranBy(s.ID, "", scouts.RunOK))
	if live, _ := c.Alarms(ctx, false); len(live) != 1 || live[0].ID != raised.ID {
		t.Fatalf("after the run that spent it: %+v", live)
	}

	offset.Store(int64(25 * time.Hour))
	c.Engine.Trigger(s.ID)
	resolved := waitFor(t, sub, "the alarm resolved the next day", alarmEvent(alarms.EventResolved, key)).Data.(alarms.Alarm)
	if resolved.ID != raised.ID {
		t.Fatalf("resolved %+v", resolved)
	}
}
