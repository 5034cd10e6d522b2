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

// A scout with a pending cap of 3 given five files shows three cards and
// holds two (announced held, never in the inbox), with one alarm saying
// how many; each card decided lets the oldest held one in, and once none
// is held the alarm is resolved. No card is lost.
func TestPendingCapHoldsAndLetsIn(t *testing.T) {
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir()})
	ctx := context.Background()
	docs := t.TempDir()
	s := folderScout(t, c, docs, scouts.Budget{})
	waitFor(t, sub, "the scout's first run", ranBy(s.ID, "", scouts.RunOK))
	set := scouts.DefaultLearnSettings()
	set.PendingCap = 3
	if err := c.Definitions().SetLearnSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		dropFile(t, docs, fmt.Sprintf("f%d.txt", i), fmt.Sprintf("Item %d to look at", i))
	}
	created := map[string]scouts.Lane{}
	for len(created) < 5 {
		e := waitFor(t, sub, "five cards", func(e scouts.Event) bool {
			sg, ok := e.Data.(scouts.Suggestion)
			return e.Type == scouts.EventSuggestionCreated && ok && sg.ScoutID == s.ID
		})
		sg := e.Data.(scouts.Suggestion)
		created[sg.ID] = sg.Lane
	}
	lanes := map[scouts.Lane]int{}
	for _, l := range created {
		lanes[l]++
	}
	if lanes[scouts.LaneHeld] != 2 {
		t.Fatalf("lanes of the five cards as announced: %v, want 2 held", lanes)
	}
	live, _ := c.Alarms(ctx, false)
	if len(live) != 1 || live[0].Key != core.PendingCapAlarmKey(s.ID) || !strings.Contains(live[0].Message, "2 held — review the inbox to let them in") {
		t.Fatalf("alarms: %+v", live)
	}
	pending := func() (shown, held []scouts.Suggestion) {
		all, err := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: s.ID, Status: scouts.StatusPending, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, sg := range all {
			if sg.Lane == scouts.LaneHeld {
				held = append(held, sg)
			} else {
				shown = append(shown, sg)
			}
		}
		return shown, held
	}
	for want := 1; want >= 0; want-- {
		shown, held := pending()
		if len(shown) != 3 || len(held) != want+1 {
			t.Fatalf("%d shown and %d held, want 3 and %d", len(shown), len(held), want+1)
		}
		if _, err := c.Engine.Reject(ctx, shown[0].ID, "user"); err != nil {
			t.Fatal(err)
		}
		moved := waitFor(t, sub, "a held card let in", func(e scouts.Event) bool {
			sg, ok := e.Data.(scouts.Suggestion)
			return e.Type == scouts.EventSuggestionMoved && ok && sg.ScoutID == s.ID
		}).Data.(scouts.Suggestion)
		if moved.Lane == scouts.LaneHeld || created[moved.ID] != scouts.LaneHeld {
			t.Fatalf("let in %+v (announced in lane %q when created)", moved, created[moved.ID])
		}
	}
	shown, held := pending()
	if len(shown) != 3 || len(held) != 0 {
		t.Fatalf("at the end %d shown and %d held, want 3 and 0", len(shown), len(held))
	}
	if live, _ := c.Alarms(ctx, false); len(live) != 0 {
		t.Fatalf("alarms once none is held: %+v", live)
	}
	all, _ := c.Alarms(ctx, true)
	if len(all) != 1 || all[0].Kind != alarms.KindPendingCap || all[0].Status != alarms.Resolved {
		t.Fatalf("all alarms: %+v, want the one held-cards alarm, resolved", all)
	}
}

// A pending cap raised lets the held cards in at once, as far as the new
// cap allows, and resolves the alarm once none is held.
func TestARaisedPendingCapLetsHeldCardsIn(t *testing.T) {
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir()})
	ctx := context.Background()
	docs := t.TempDir()
	s := folderScout(t, c, docs, scouts.Budget{})
	waitFor(t, sub, "the scout's first run", ranBy(s.ID, "", scouts.RunOK))
	set := scouts.DefaultLearnSettings()
	set.PendingCap = 1
	if err := c.Definitions().SetLearnSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		dropFile(t, docs, fmt.Sprintf("f%d.txt", i), fmt.Sprintf("Item %d", i))
	}
	for n := 0; n < 3; {
		waitFor(t, sub, "three cards", func(e scouts.Event) bool {
			sg, ok := e.Data.(scouts.Suggestion)
			return e.Type == scouts.EventSuggestionCreated && ok && sg.ScoutID == s.ID
		})
		n++
	}
	if n, _ := c.HeldCount(ctx, s.ID); n != 2 {
		t.Fatalf("%d held under a cap of 1, want 2", n)
	}
	set.PendingCap = 2
	if err := c.Definitions().SetLearnSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	// The new version is announced, then the held cards are let in: the
	// one the new cap makes room for is moved out of held.
	waitFor(t, sub, "a held card let in", func(e scouts.Event) bool {
		sg, ok := e.Data.(scouts.Suggestion)
		return e.Type == scouts.EventSuggestionMoved && ok && sg.ScoutID == s.ID && sg.Lane != scouts.LaneHeld
	})
	if n, _ := c.HeldCount(ctx, s.ID); n != 1 {
		t.Fatalf("%d held under a cap of 2, want 1", n)
	}
	set.PendingCap = 10
	if err := c.Definitions().SetLearnSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sub, "the held-cards alarm resolved", alarmEvent(alarms.EventResolved, core.PendingCapAlarmKey(s.ID)))
	if n, _ := c.HeldCount(ctx, s.ID); n != 0 {
		t.Fatalf("%d held under a cap of 10, want 0", n)
	}
}

// Cards whose rules propose actions awaiting approval have their own cap
// (pending_actions_cap): past it such cards are held while cards without
// actions still come in; deciding one lets the next in.
func TestPendingActionsCapHoldsCardsWithActions(t *testing.T) {
	home := t.TempDir()
	c, sub := openCoreWith(t, core.Config{DataDir: t.TempDir(), Home: home})
	ctx := context.Background()
	docs := filepath.Join(home, "Inbox")
	if err := os.MkdirAll(filepath.Join(home, "Sorted"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	s := folderScout(t, c, docs, scouts.Budget{})
	waitFor(t, sub, "the scout's first run", ranBy(s.ID, "", scouts.RunOK))
	if _, err := c.Rules().Add(ctx, s.ID, []byte(`{"id":"sort","when":{"ext":{"equals":"txt"}},
		"then":{"verdict":"show","actions":[{"action":"file.move","params":{"to":"~/Sorted"}}]}}`), -1); err != nil {
		t.Fatal(err)
	}
	set := scouts.DefaultLearnSettings()
	set.PendingActionsCap = 1
	if err := c.Definitions().SetLearnSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "b.txt", "c.txt", "d.md"} {
		dropFile(t, docs, name, "Text of "+name)
	}
	lane := map[string]scouts.Lane{}
	for len(lane) < 4 {
		sg := waitFor(t, sub, "four cards", func(e scouts.Event) bool {
			sg, ok := e.Data.(scouts.Suggestion)
			return e.Type == scouts.EventSuggestionCreated && ok && sg.ScoutID == s.ID
		}).Data.(scouts.Suggestion)
		lane[filepath.Base(sg.Path)] = sg.Lane
	}
	held := 0
	for name, l := range lane {
		if l == scouts.LaneHeld {
			held++
			if !strings.HasSuffix(name, ".txt") {
				t.Fatalf("%s held: it carries no action", name)
			}
		}
	}
	if held != 2 || lane["d.md"] == scouts.LaneHeld {
		t.Fatalf("lanes as announced: %v, want two of the .txt cards held", lane)
	}
	all, err := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: s.ID, Status: scouts.StatusPending, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var shownTxt scouts.Suggestion
	for _, sg := range all {
		if sg.Lane != scouts.LaneHeld && strings.HasSuffix(sg.Path, ".txt") {
			shownTxt = sg
		}
	}
	if _, err := c.Engine.Reject(ctx, shownTxt.ID, "user"); err != nil {
		t.Fatal(err)
	}
	moved := waitFor(t, sub, "a held card let in", func(e scouts.Event) bool {
		sg, ok := e.Data.(scouts.Suggestion)
		return e.Type == scouts.EventSuggestionMoved && ok && sg.ScoutID == s.ID
	}).Data.(scouts.Suggestion)
	if !strings.HasSuffix(moved.Path, ".txt") || moved.Lane == scouts.LaneHeld {
		t.Fatalf("let in: %+v", moved)
	}
	if n, _ := c.HeldCount(ctx, s.ID); n != 1 {
		t.Fatalf("%d held after one decision, want 1", n)
	}
}
