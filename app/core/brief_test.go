package core_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/coretest"
	"github.com/scouts-hq/scouts/scouts"
)

// The daily brief at its time lists what was screened since the last one;
// a brief whose time passed while the agent was off is sent when it
// starts; one with nothing new is not sent; and a card it lists can be
// brought back.
func TestDailyBriefListsWhatWasScreenedSinceTheLast(t *testing.T) {
	ctx := context.Background()
	var clock atomic.Int64
	clock.Store(tomorrowAt(7, time.Local).UnixMilli())
	now := func() time.Time { return time.UnixMilli(clock.Load()) }
	dataDir := t.TempDir()
	ctx1, stop := context.WithCancel(ctx)
	c, err := core.Open(ctx1, core.Config{DataDir: dataDir, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	sub, _, _ := c.Bus.Subscribe(0, 4096)
	if err := c.Start(ctx1); err != nil {
		t.Fatal(err)
	}
	// The first start is on record once Start returns, whatever the
	// brief's loop has done yet: an agent stopped at once and started
	// again after 08:30 still sends that day's brief.
	if v, ok, err := c.DB.Setting(ctx, "brief_checked"); err != nil || !ok || v != now().Format(time.RFC3339Nano) {
		t.Fatalf("the first start on record when Start returned: %q, %v, %v", v, ok, err)
	}
	if at, err := c.BriefAt(ctx); err != nil || at != "08:30" {
		t.Fatalf("brief time by default: %q, %v", at, err)
	}
	if _, err := c.SetBriefAt(ctx, "8am"); err == nil {
		t.Fatal("a brief time that is not HH:MM was accepted")
	}
	dir := t.TempDir()
	dropFile(t, dir, "digest.txt", "weekly digest\n")
	cfg, _ := json.Marshal(map[string]any{"path": dir, "settle": "1ms", "include_existing": true})
	if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Inbox", Review: true, Enabled: true, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	card := waitFor(t, sub, "the card", suggestedPath("digest.txt")).Data.(scouts.Suggestion)
	if _, err := c.Engine.Screen(ctx, card.ID, "test"); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// The agent was off at 08:30; started at 09:00 it sends the brief.
	clock.Store(tomorrowAt(9, time.Local).UnixMilli())
	c2, sub2 := coretest.Open(t, core.Config{DataDir: dataDir, Now: now})
	b := waitFor(t, sub2, "the daily brief", func(e scouts.Event) bool { return e.Type == core.EventBriefReady }).Data.(core.Brief)
	if len(b.Screened) != 1 || b.Screened[0].ID != card.ID {
		t.Fatalf("brief: screened %+v, want the digest", b.Screened)
	}
	// Nothing new since: the next brief is not sent.
	if _, sent, err := c2.SendBrief(ctx); err != nil || sent {
		t.Fatalf("a brief with nothing new: sent %v, %v", sent, err)
	}
	again, err := c2.Brief(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Screened) != 0 || again.New {
		t.Fatalf("the brief after the last: %+v", again)
	}
	back, err := c2.Engine.BringBack(ctx, b.Screened[0].ID, "test")
	if err != nil || back.Lane != scouts.LaneInbox {
		t.Fatalf("bring back from the brief: %v, lane %s", err, back.Lane)
	}
}

// tomorrowAt is hour o'clock tomorrow in loc: a test clock that stays
// ahead of the wall clock the folder scout's files are written by (a
// clock fixed on a date passed behind the files' times, and the scout
// waited for them to settle forever).
func tomorrowAt(hour int, loc *time.Location) time.Time {
	y, m, d := time.Now().In(loc).AddDate(0, 0, 1).Date()
	return time.Date(y, m, d, hour, 0, 0, 0, loc)
}
