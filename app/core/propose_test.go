package core_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts"
)

// A file's content proposes its kind and fields before any learning: an
// invoice due Friday is a task due that Friday (not a note, as a text file
// would be by default), a meeting with a time is an event at that time, and
// a task naming an open project is linked to it.
func TestContentProposesKindAndFields(t *testing.T) {
	ctx := context.Background()
	c, sub := openCoreIn(t, t.TempDir())
	proj, err := c.CreateEntity(ctx, scouts.Entity{Kind: scouts.EntityProject, Title: "Website relaunch"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"path": dir, "settle": "1ms"})
	if _, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Inbox", Review: true, Enabled: true, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) scouts.Suggestion {
		t.Helper()
		dropFile(t, dir, name, text)
		return waitFor(t, sub, "the card of "+name, suggestedPath(name)).Data.(scouts.Suggestion)
	}
	inv := write("acme.txt", "Pay the ACME invoice — due Friday: 1 200 EUR\n")
	if inv.ProposedKind != scouts.EntityTask || inv.Assessment.Due.IsZero() || inv.Assessment.Due.Weekday() != time.Friday {
		t.Fatalf("invoice: kind %s, due %v, why %q", inv.ProposedKind, inv.Assessment.Due, inv.Assessment.Why)
	}
	if inv.Assessment.KindFrom != "content" || !slices.ContainsFunc(inv.Assessment.Why, func(w string) bool { return strings.Contains(w, "invoice") }) {
		t.Fatalf("invoice: kind from %q, why %q", inv.Assessment.KindFrom, inv.Assessment.Why)
	}
	meet := write("sync.md", "# Team sync\n\nTeam sync on Tuesday at 14:30 in room 4.\n")
	if meet.ProposedKind != scouts.EntityEvent || meet.Assessment.StartsAt.Hour() != 14 || meet.Assessment.StartsAt.Minute() != 30 {
		t.Fatalf("meeting: kind %s, starts %v", meet.ProposedKind, meet.Assessment.StartsAt)
	}
	task := write("copy.txt", "Please send the new homepage copy for the Website relaunch by Monday\n")
	if task.ProposedKind != scouts.EntityTask || task.Assessment.ProjectID != proj.ID {
		t.Fatalf("project task: kind %s, project %q (want %s), why %q", task.ProposedKind, task.Assessment.ProjectID, proj.ID, task.Assessment.Why)
	}
}
