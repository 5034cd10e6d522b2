package core_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/internal/coretest"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// A card snoozed "in 3 hours" waits in the Snoozed lane, counted there and
// not in the inbox; when the agent was off past its time it is back at the
// top of the inbox as soon as the agent starts again, announced, with the
// audit trail saying so — and the learner learned nothing from it.
func TestSnoozedCardReturnsAfterTheAgentWasOff(t *testing.T) {
	ctx := context.Background()
	var clock atomic.Int64
	clock.Store(tomorrowAt(10, time.UTC).UnixMilli())
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
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		dropFile(t, dir, name, "note "+name+"\n")
	}
	// The files are there first: the scout's first scan suggests them.
	cfg, _ := json.Marshal(map[string]any{"path": dir, "settle": "1ms", "include_existing": true})
	if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Inbox", Review: true, Enabled: true, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	// The three come in any order.
	seen := map[string]scouts.Suggestion{}
	waitFor(t, sub, "the three cards", func(e scouts.Event) bool {
		if s, ok := e.Data.(scouts.Suggestion); ok && e.Type == scouts.EventSuggestionCreated {
			seen[filepath.Base(s.Path)] = s
		}
		return len(seen) == 3
	})
	first := seen["a.txt"]
	if _, err := c.Snooze(ctx, first.ID, "whenever", "test"); err == nil {
		t.Fatal("a time that cannot be read was accepted")
	}
	s, err := c.Snooze(ctx, first.ID, "in 3 hours", "test")
	if err != nil {
		t.Fatal(err)
	}
	if s.Lane != scouts.LaneSnoozed || !s.SnoozedUntil.Equal(now().Add(3*time.Hour)) {
		t.Fatalf("snoozed: lane %s until %v", s.Lane, s.SnoozedUntil)
	}
	lanes, err := c.DB.CountPendingByLane(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lanes[scouts.LaneSnoozed] != 1 || lanes[scouts.LaneInbox] != 2 {
		t.Fatalf("lanes after snooze: %v", lanes)
	}
	if _, err := c.Engine.BringBack(ctx, first.ID, "test"); err == nil {
		t.Fatal("bring back of a snoozed card was accepted (it would teach the learner)")
	}
	stop()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// Four hours later the agent starts again.
	clock.Add((4 * time.Hour).Milliseconds())
	c2, sub2 := coretest.Open(t, core.Config{DataDir: dataDir, Now: now})
	back := waitFor(t, sub2, "the snoozed card back", func(e scouts.Event) bool {
		s, ok := e.Data.(scouts.Suggestion)
		return e.Type == core.EventSuggestionReturned && ok && s.ID == first.ID
	}).Data.(scouts.Suggestion)
	if back.Lane != scouts.LaneInbox || !back.ReturnedAt.Equal(now()) {
		t.Fatalf("back: lane %s returned %v", back.Lane, back.ReturnedAt)
	}
	inbox, err := c2.DB.ListSuggestions(ctx, localdb.SuggestionFilter{Status: scouts.StatusPending, Lane: scouts.LaneInbox})
	if err != nil {
		t.Fatal(err)
	}
	if len(inbox) != 3 || inbox[0].ID != first.ID {
		t.Fatalf("inbox after the snooze: %d cards, first %s (want %s first)", len(inbox), inbox[0].ID, first.ID)
	}
	trail, err := c2.DB.ListAudit(ctx, localdb.AuditFilter{TraceID: first.TraceID})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, e := range trail {
		said = append(said, e.Summary)
	}
	if !containsPrefix(said, "Snoozed by test until") || !containsPrefix(said, "Back from snooze to the top of the inbox (the agent was not running") {
		t.Fatalf("audit trail: %q", said)
	}
}

// Unsnoozing before the time takes the card back to the lane it left.
func TestUnsnoozeBeforeItsTime(t *testing.T) {
	ctx := context.Background()
	c, sub := openCoreIn(t, t.TempDir())
	dir := t.TempDir()
	dropFile(t, dir, "a.txt", "a note\n")
	cfg, _ := json.Marshal(map[string]any{"path": dir, "settle": "1ms", "include_existing": true})
	if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Inbox", Review: true, Enabled: true, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	card := waitFor(t, sub, "the card", suggestedPath("a.txt")).Data.(scouts.Suggestion)
	if _, err := c.Engine.Screen(ctx, card.ID, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Snooze(ctx, card.ID, "next week", "test"); err != nil {
		t.Fatal(err)
	}
	s, err := c.Unsnooze(ctx, card.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	if s.Lane != scouts.LaneScreened || !s.SnoozedUntil.IsZero() {
		t.Fatalf("unsnoozed: lane %s until %v (want screened, none)", s.Lane, s.SnoozedUntil)
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// A task snoozed until a time is out of the list of tasks until then, and
// back in it, announced, once its time has come.
func TestSnoozedTaskLeavesTheListUntilItsTime(t *testing.T) {
	ctx := context.Background()
	var clock atomic.Int64
	clock.Store(tomorrowAt(10, time.UTC).UnixMilli())
	now := func() time.Time { return time.UnixMilli(clock.Load()) }
	c, sub := coretest.Open(t, core.Config{DataDir: t.TempDir(), Now: now})
	task, err := c.CreateEntity(ctx, scouts.Entity{Kind: scouts.EntityTask, Title: "Call the plumber"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.SnoozeTask(ctx, task.ID, "in 2 hours", "test"); err != nil {
		t.Fatal(err)
	}
	open := func() int {
		list, err := c.DB.ListEntities(ctx, scouts.EntityTask, localdb.EntityFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	if n := open(); n != 0 {
		t.Fatalf("a snoozed task is listed (%d tasks)", n)
	}
	clock.Add((2 * time.Hour).Milliseconds())
	if _, err := c.ReturnSnoozed(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, "the task back", func(e scouts.Event) bool {
		en, ok := e.Data.(scouts.Entity)
		return e.Type == core.EventTaskReturned && ok && en.ID == task.ID
	})
	if n := open(); n != 1 {
		t.Fatalf("the task back from snooze is not listed (%d tasks)", n)
	}
}

// A card snoozed past its deadline does not expire while snoozed, and
// comes back with a full deadline from its return.
func TestSnoozedCardDoesNotExpireWhileSnoozed(t *testing.T) {
	ctx := context.Background()
	var clock atomic.Int64
	clock.Store(tomorrowAt(10, time.UTC).UnixMilli())
	now := func() time.Time { return time.UnixMilli(clock.Load()) }
	dir := t.TempDir()
	dropFile(t, dir, "a.txt", "a note\n")
	c, sub := coretest.Open(t, core.Config{DataDir: t.TempDir(), Now: now, Expiry: time.Hour})
	cfg, _ := json.Marshal(map[string]any{"path": dir, "settle": "1ms", "include_existing": true})
	if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Inbox", Review: true, Enabled: true, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	card := waitFor(t, sub, "the card", suggestedPath("a.txt")).Data.(scouts.Suggestion)
	if _, err := c.Snooze(ctx, card.ID, "in 3 hours", "test"); err != nil {
		t.Fatal(err)
	}
	clock.Add((2 * time.Hour).Milliseconds())
	if n, err := c.Engine.SweepExpired(ctx); err != nil || n != 0 {
		t.Fatalf("sweep while snoozed: %d expired, %v", n, err)
	}
	clock.Add((2 * time.Hour).Milliseconds())
	back, err := c.ReturnSnoozed(ctx)
	if err != nil || len(back) != 1 {
		t.Fatalf("returned %d, %v", len(back), err)
	}
	if !back[0].ExpiresAt.After(now()) || back[0].Status != scouts.StatusPending {
		t.Fatalf("back from snooze: %s, expires %v (now %v)", back[0].Status, back[0].ExpiresAt, now())
	}
	if n, err := c.Engine.SweepExpired(ctx); err != nil || n != 0 {
		t.Fatalf("sweep after the return: %d expired, %v", n, err)
	}
}
