package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// scouts snooze puts a card in the Snoozed lane with a time typed in
// words, the status counts it there, and unsnooze takes it back; a time
// that cannot be read is refused with words that say so.
func TestSnoozeFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	os.WriteFile(filepath.Join(drop, "report.md"), []byte("# Quarterly report\n\nRead it.\n"), 0o644)
	if _, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, IncludeExisting: true}); err != nil {
		t.Fatal(err)
	}
	card := pendingCards(t, c, 1)[0]

	_, errOut, code := cli(t, dir, "snooze", card.ID, "whenever")
	if code != 1 || !strings.Contains(errOut, "cannot read a time") {
		t.Fatalf("snooze whenever: code %d, %s", code, errOut)
	}
	out, errOut, code := cli(t, dir, "snooze", card.ID, "tomorrow", "morning")
	if code != 0 || !strings.Contains(out, "Snoozed until") || !strings.Contains(out, card.ID) {
		t.Fatalf("snooze: code %d\n%s%s", code, out, errOut)
	}
	out, _, _ = cli(t, dir, "suggestions", "--lane", "snoozed")
	if !strings.Contains(out, "Quarterly report") {
		t.Fatalf("suggestions --lane snoozed:\n%s", out)
	}
	out, _, _ = cli(t, dir, "suggestions")
	if strings.Contains(out, "Quarterly report") {
		t.Fatalf("a snoozed card is in the inbox:\n%s", out)
	}
	out, errOut, code = cli(t, dir, "unsnooze", card.ID)
	if code != 0 || !strings.Contains(out, "back in inbox") {
		t.Fatalf("unsnooze: code %d\n%s%s", code, out, errOut)
	}
	// A task too: out of the list of tasks until then.
	title := "Call the plumber"
	task, err := c.CreateEntity(ctx, "task", apitype.EntityInput{Title: &title})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code = cli(t, dir, "snooze", task.ID, "next", "week")
	if code != 0 || !strings.Contains(out, "Task snoozed until") {
		t.Fatalf("snooze a task: code %d\n%s%s", code, out, errOut)
	}
	tasks, err := c.Entities(ctx, "task")
	if err != nil || len(tasks) != 0 {
		t.Fatalf("tasks after snoozing the only one: %d, %v", len(tasks), err)
	}
}
