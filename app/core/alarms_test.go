package core_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// alarmEvent matches an alarm event of type typ for dedupe key key.
func alarmEvent(typ, key string) func(scouts.Event) bool {
	return func(e scouts.Event) bool {
		a, ok := e.Data.(alarms.Alarm)
		return e.Type == typ && ok && a.Key == key
	}
}

// A scout whose folder is gone fails its runs: after three in a row one
// alarm is raised (not one per failure after that), acknowledging it keeps
// it live, and the scout's next good run resolves it; failing again later
// opens a new one. Each step is on the audit trail.
func TestFailingRunsRaiseOneAlarmResolvedByAGoodRun(t *testing.T) {
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir()})
	ctx := context.Background()
	docs := t.TempDir()
	s := folderScout(t, c, docs, scouts.Budget{})
	waitFor(t, sub, "the scout's first run", ranBy(s.ID, "", scouts.RunOK))
	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	key := alarms.RunsKey(s.ID)
	// The folder's watch may run the scout too: every failed run is
	// counted from the stream, whichever asked for it.
	failedOrRaised := func(e scouts.Event) bool {
		return ranBy(s.ID, "", scouts.RunFailed)(e) || alarmEvent(alarms.EventRaised, key)(e)
	}
	failures := 0
	var raised alarms.Alarm
	for raised.ID == "" {
		c.Engine.Trigger(s.ID)
		e := waitFor(t, sub, "a failed run or the alarm", failedOrRaised)
		if a, ok := e.Data.(alarms.Alarm); ok {
			raised = a
		} else {
			failures++
		}
	}
	if failures != 3 {
		t.Fatalf("the alarm was raised after %d failed runs, want 3", failures)
	}
	if raised.ScoutID != s.ID || raised.Status != alarms.Open || raised.Severity != alarms.Critical || raised.Message == "" {
		t.Fatalf("raised: %+v", raised)
	}
	acked, err := c.AckAlarm(ctx, raised.ID)
	if err != nil || acked.Status != alarms.Acknowledged || acked.AckedAt == nil {
		t.Fatalf("ack: %+v, %v", acked, err)
	}
	c.Engine.Trigger(s.ID)
	waitFor(t, sub, "a further failed run", ranBy(s.ID, "", scouts.RunFailed))
	live, err := c.Alarms(ctx, false)
	if err != nil || len(live) != 1 || live[0].ID != raised.ID || live[0].Status != alarms.Acknowledged {
		t.Fatalf("after a fourth failure: %+v, %v; want the one acknowledged alarm", live, err)
	}

	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	c.Engine.Trigger(s.ID)
	resolved := waitFor(t, sub, "the alarm resolved by a good run", alarmEvent(alarms.EventResolved, key)).Data.(alarms.Alarm)
	if resolved.ID != raised.ID || resolved.Status != alarms.Resolved || resolved.ResolvedAt == nil {
		t.Fatalf("resolved: %+v", resolved)
	}
	if live, _ := c.Alarms(ctx, false); len(live) != 0 {
		t.Fatalf("live after the good run: %+v", live)
	}
	if _, err := c.AckAlarm(ctx, raised.ID); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("acknowledging a resolved alarm: %v, want not found", err)
	}

	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	for again := false; !again; {
		c.Engine.Trigger(s.ID)
		_, again = waitFor(t, sub, "a failed run or the alarm", failedOrRaised).Data.(alarms.Alarm)
	}
	all, err := c.Alarms(ctx, true)
	if err != nil || len(all) != 2 || all[0].Status != alarms.Open || all[0].ID == raised.ID || all[1].Status != alarms.Resolved {
		t.Fatalf("after failing again: %+v, %v; want a new open alarm and the resolved one", all, err)
	}
	trail, err := c.DB.ListAudit(ctx, localdb.AuditFilter{Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range trail {
		if e.Refs["dedupe_key"] == key {
			count[e.Type]++
		}
	}
	if count[alarms.AuditRaised] != 2 || count[alarms.AuditAcknowledged] != 1 || count[alarms.AuditResolved] != 1 {
		t.Fatalf("audit: %v", count)
	}
}

// A definitions file that does not read raises one alarm naming the file
// and saying what to do; once the file is fixed the next reading of the
// folder resolves it.
func TestABrokenDefinitionsFileRaisesAnAlarmUntilFixed(t *testing.T) {
	defs := t.TempDir()
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs})
	file := filepath.Join(defs, "notes.yaml")
	if err := os.WriteFile(file, []byte("version: 1\nkind: folder\nname: [broken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := "definitions_broken:notes.yaml"
	raised := waitFor(t, sub, "the broken file's alarm", alarmEvent(alarms.EventRaised, key)).Data.(alarms.Alarm)
	if !strings.Contains(raised.Message, "notes.yaml") || !strings.Contains(raised.Message, "Fix the file") {
		t.Fatalf("raised: %+v", raised)
	}
	good := fmt.Sprintf("version: 1\nkind: folder\nname: Notes\nsource:\n  path: %s\n", t.TempDir())
	if err := os.WriteFile(file, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	resolved := waitFor(t, sub, "the alarm resolved by the fix", alarmEvent(alarms.EventResolved, key)).Data.(alarms.Alarm)
	if resolved.ID != raised.ID {
		t.Fatalf("resolved %+v, raised %+v", resolved, raised)
	}
	if live, _ := c.Alarms(context.Background(), false); len(live) != 0 {
		t.Fatalf("live after the fix: %+v", live)
	}
}
