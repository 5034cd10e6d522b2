package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// scouts undo takes back a card marked as spam, or an approval, within the
// undo window: the card is pending again where it was, the entity gone.
func TestUndoFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	os.WriteFile(filepath.Join(drop, "invoice.md"), []byte("# Invoice 7\n\nPay by Friday.\n"), 0o644)
	if _, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, IncludeExisting: true}); err != nil {
		t.Fatal(err)
	}
	id := pendingCards(t, c, 1)[0].ID

	if out, errOut, code := cli(t, dir, "spam", id); code != 0 {
		t.Fatalf("spam: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := cli(t, dir, "undo", id)
	if code != 0 || !strings.Contains(out, "Undone: "+id) || !strings.Contains(out, "pending again (inbox)") {
		t.Fatalf("undo spam: code %d\n%s%s", code, out, errOut)
	}
	s, err := c.Suggestion(ctx, id)
	if err != nil || s.Status != "pending" || s.Lane != "inbox" {
		t.Fatalf("after undoing spam: %+v %v", s, err)
	}

	if out, errOut, code := cli(t, dir, "approve", id, "--as", "task"); code != 0 {
		t.Fatalf("approve: code %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := cli(t, dir, "undo", id, "--json"); code != 0 || !strings.Contains(out, `"status": "pending"`) {
		t.Fatalf("undo the approval: code %d\n%s%s", code, out, errOut)
	}
	if tasks, err := c.Entities(ctx, "task"); err != nil || len(tasks) != 0 {
		t.Fatalf("tasks after undoing the approval: %+v %v", tasks, err)
	}

	_, errOut, code = cli(t, dir, "undo", id)
	if code != 1 || !strings.Contains(errOut, "nothing to undo") {
		t.Fatalf("undo of a pending card: code %d, %s", code, errOut)
	}
	if _, errOut, code = cli(t, dir, "undo"); code != 2 || !strings.Contains(errOut, "suggestion ID") {
		t.Fatalf("undo without an ID: code %d, %s", code, errOut)
	}
}
