package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// TestPendingCapHoldsAcrossARestart: a folder scout with a pending cap of 3
// given five files shows three cards and holds two, says so on the scout
// and in one alarm; the agent killed and started again still holds them;
// each card decided lets the oldest held one in, and at the end every file
// is a card (none lost) and the alarm is resolved.
func TestPendingCapHoldsAcrossARestart(t *testing.T) {
	ctx := context.Background()
	home, dataDir := t.TempDir(), t.TempDir()
	a := startAgent(t, dataDir, home)
	docs := filepath.Join(home, "docs")
	os.MkdirAll(docs, 0o755)
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Docs", Path: docs})
	if err != nil {
		t.Fatal(err)
	}
	three := 3
	if _, err := a.client.SetLearning(ctx, sc.ID, apitype.LearnSettings{ColdStart: 30, ScreenBelow: 0.3, SpamAbove: 0.9, MinSpam: 10,
		PendingCap: &three}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		os.WriteFile(filepath.Join(docs, fmt.Sprintf("note%d.txt", i)), []byte(fmt.Sprintf("Note number %d to read.", i)), 0o644)
	}
	lanes := func(c *localclient.Client) (shown, held []apitype.Suggestion) {
		all, err := c.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending", ScoutID: sc.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			if s.Lane == "held" {
				held = append(held, s)
			} else {
				shown = append(shown, s)
			}
		}
		return shown, held
	}
	settled := func(p *agentProc, shown, held int) {
		t.Helper()
		var s, h []apitype.Suggestion
		waitOn(t, on(p.changed()), fmt.Sprintf("%d shown and %d held", shown, held), func() bool {
			s, h = lanes(p.client)
			return len(s) == shown && len(h) == held
		}, func() string { return fmt.Sprintf("%d shown, %d held", len(s), len(h)) })
	}
	settled(a, 3, 2)
	got, err := a.client.Scout(ctx, sc.ID)
	if err != nil || got.Held != 2 || got.HeldMessage != "2 held — review the inbox to let them in" {
		t.Fatalf("the scout: held %d %q, %v", got.Held, got.HeldMessage, err)
	}
	alarms, err := a.client.Alarms(ctx, false)
	if err != nil || len(alarms) != 1 || alarms[0].Kind != "pending_cap" || !strings.Contains(alarms[0].Message, "2 held") {
		t.Fatalf("alarms: %+v, %v", alarms, err)
	}

	a.kill()
	b := startAgent(t, dataDir, home)
	settled(b, 3, 2)
	for held := 1; held >= 0; held-- {
		shown, _ := lanes(b.client)
		if _, err := b.client.Reject(ctx, shown[0].ID); err != nil {
			t.Fatal(err)
		}
		settled(b, 3, held)
	}
	all, err := b.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", ScoutID: sc.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range all {
		paths = append(paths, filepath.Base(s.Path))
	}
	slices.Sort(paths)
	if strings.Join(paths, ",") != "note1.txt,note2.txt,note3.txt,note4.txt,note5.txt" {
		t.Fatalf("cards: %v, want one per file", paths)
	}
	waitOn(t, on(b.changed()), "the held-cards alarm resolved", func() bool {
		live, err := b.client.Alarms(ctx, false)
		return err == nil && len(live) == 0
	})
	if got, _ := b.client.Scout(ctx, sc.ID); got.Held != 0 || got.HeldMessage != "" {
		t.Fatalf("the scout at the end: held %d %q", got.Held, got.HeldMessage)
	}
}
