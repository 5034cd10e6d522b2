package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// TestSnoozedCardReturnsAfterTheAgentWasStopped: a card snoozed with the
// real CLI against a real agent waits in the Snoozed lane; the agent is
// stopped, its time passes while it is off, and the agent started again
// brings it back to the top of the inbox, with the audit trail saying it
// came back late.
func TestSnoozedCardReturnsAfterTheAgentWasStopped(t *testing.T) {
	ctx := context.Background()
	home, dataDir := t.TempDir(), t.TempDir()
	a := startAgent(t, dataDir, home)
	docs := filepath.Join(home, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "report.txt"), []byte("Read the quarterly report."), 0o644)
	os.WriteFile(filepath.Join(docs, "older.txt"), []byte("Another note."), 0o644)
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: docs, IncludeExisting: true})
	if err != nil {
		t.Fatal(err)
	}
	cards := cardsOf(t, a, sc.ID, 2)
	var card apitype.Suggestion
	for _, c := range cards {
		if c.Title == "report" || strings.Contains(c.Path, "report") {
			card = c
		}
	}
	if card.ID == "" {
		t.Fatalf("no card for report.txt: %+v", cards)
	}

	// Two seconds ahead: the snooze must end while the agent is off.
	until := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second).Add(time.Second)
	out, errOut, code := runCLI(t, home, dataDir, "snooze", card.ID, until.Format(time.RFC3339))
	if code != 0 || !strings.Contains(out, "Snoozed until") {
		t.Fatalf("scouts snooze: code %d\n%s%s", code, out, errOut)
	}
	st, err := a.client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lanes["snoozed"] != 1 {
		t.Fatalf("status lanes after the snooze: %v", st.Lanes)
	}
	a.stop()
	// The agent is off; what is waited for here is the wall clock itself
	// passing the snooze's end, not another process.
	<-time.After(time.Until(until))

	b := startAgent(t, dataDir, home)
	var inbox []apitype.Suggestion
	waitOn(t, on(b.changed()), "the snoozed card at the top of the inbox", func() bool {
		inbox, err = b.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending", Lane: "inbox"})
		return err == nil && len(inbox) == 2 && inbox[0].ID == card.ID
	}, func() string { return "inbox: " + strings.Join(titles(inbox), ", ") })
	if inbox[0].ReturnedAt == nil || inbox[0].Lane != "inbox" {
		t.Fatalf("returned card: %+v", inbox[0])
	}
	trail, err := b.client.Audit(ctx, card.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, e := range trail {
		said = append(said, e.Summary)
	}
	if !strings.Contains(strings.Join(said, "\n"), "Back from snooze to the top of the inbox") {
		t.Fatalf("audit trail: %q", said)
	}
}
