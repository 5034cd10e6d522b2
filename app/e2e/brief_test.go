package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
)

// TestBriefListsWhatWasScreenedAndBringsItBack, over real processes: a
// folder the person screened (the screener's key) files a new receipt in
// Screened; `scouts brief` and GET /api/v1/brief list it with the way to
// bring it back, `scouts bring-back` from there puts it in the inbox, and
// the brief then counts it there. The brief's time is set and read back
// with `scouts brief --at`.
func TestBriefListsWhatWasScreenedAndBringsItBack(t *testing.T) {
	watchtest.Need(t)
	ctx := context.Background()
	home, dataDir := t.TempDir(), t.TempDir()
	a := startAgent(t, dataDir, home)
	dir := filepath.Join(home, "Drop")
	os.MkdirAll(filepath.Join(dir, "receipts"), 0o700)
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Drop", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	drop := func(name string) {
		t.Helper()
		tmp := filepath.Join(t.TempDir(), filepath.Base(name))
		if err := os.WriteFile(tmp, []byte("Receipt "+name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	drop("receipts/a.txt")
	first := cardsOf(t, a, sc.ID, 1)[0]
	if _, err := a.client.ScreenSender(ctx, first.ID, "screen"); err != nil {
		t.Fatal(err)
	}
	drop("receipts/b.txt")
	var b apitype.Suggestion
	for _, s := range cardsOf(t, a, sc.ID, 2) {
		if strings.HasSuffix(s.Path, "b.txt") {
			b = s
		}
	}
	if b.Lane != "screened" || b.Status != "pending" {
		t.Fatalf("the new receipt: %s %s, want pending in screened", b.Status, b.Lane)
	}

	out, errOut, code := runCLI(t, home, dataDir, "brief")
	if code != 0 || !strings.Contains(out, "Screened since the last brief: 1") || !strings.Contains(out, "bring-back "+b.ID) {
		t.Fatalf("scouts brief: code %d\n%s%s", code, out, errOut)
	}
	brief, err := a.client.Brief(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(brief.Screened) != 1 || brief.Screened[0].ID != b.ID || !brief.New || brief.BriefAt != "08:30" {
		t.Fatalf("GET /brief: %+v", brief)
	}

	out, errOut, code = runCLI(t, home, dataDir, "bring-back", b.ID)
	if code != 0 || !strings.Contains(out, "Back in the inbox: "+b.ID) {
		t.Fatalf("bring-back from the brief: code %d\n%s%s", code, out, errOut)
	}
	if brief, err = a.client.Brief(ctx); err != nil {
		t.Fatal(err)
	}
	if len(brief.Screened) != 0 || brief.InboxCount != 1 || brief.Inbox[0].ID != b.ID {
		t.Fatalf("the brief after bringing it back: screened %d, inbox %d", len(brief.Screened), brief.InboxCount)
	}

	out, errOut, code = runCLI(t, home, dataDir, "brief", "--at", "7:45")
	if code != 0 || !strings.Contains(out, "comes at 07:45") {
		t.Fatalf("scouts brief --at: code %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code = runCLI(t, home, dataDir, "brief", "--at", "breakfast"); code != 1 || !strings.Contains(errOut, "time of day") {
		t.Fatalf("scouts brief --at breakfast: code %d, %s", code, errOut)
	}
}
