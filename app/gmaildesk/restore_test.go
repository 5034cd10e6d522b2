package gmaildesk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// trashingScout creates a Gmail scout in mode that moves spam to the
// Trash.
func trashingScout(t *testing.T, d *gmailtest.Desktop, mode string) scouts.Scout {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"email": gmailtest.Account, "mode": mode, "auto_trash_spam": true})
	cr, err := d.Core.CreateScout(context.Background(), core.NewScout{Kind: scouts.KindGmail, Name: "Mail", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return cr.Scout
}

// deliverSpam delivers a mail the triage calls spam (its sender's domain
// refused the server: SPF failed, no DKIM) and returns its id.
func deliverSpam(t *testing.T, g *gmailtest.Google) string {
	t.Helper()
	raw := "From: Shop <deals@shop.example>\r\nTo: " + gmailtest.Account + "\r\nSubject: Your invoice is ready\r\n" +
		"Authentication-Results: mx.google.com; spf=fail smtp.mailfrom=deals@shop.example\r\n" +
		"Date: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <spam-1@shop.example>\r\nContent-Type: text/plain\r\n\r\nPay now.\r\n"
	id, _, err := g.Gmail.Deliver(gmailtest.Account, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// spamCard waits for the card of message id in the Spam lane, its mail in
// Gmail's Trash.
func spamCard(t *testing.T, d *gmailtest.Desktop, g *gmailtest.Google, scoutID, id string) scouts.Suggestion {
	t.Helper()
	ctx := context.Background()
	var card scouts.Suggestion
	d.Until("the spam card", func() bool {
		s, err := d.Core.DB.SuggestionByRef(ctx, scoutID, id)
		card = s
		return err == nil
	}, func() string { return fmt.Sprintf("(scout health %q)", lastError(t, d, scoutID)) })
	if card.Lane != scouts.LaneSpam || !card.Assessment.Trashed {
		t.Fatalf("the card is in %s, trashed %v (%s): want the Spam lane, trashed", card.Lane, card.Assessment.Trashed, card.Assessment.LaneReason)
	}
	if labels, _ := g.Gmail.Message(gmailtest.Account, id); !slices.Contains(labels, "TRASH") || slices.Contains(labels, "INBOX") {
		t.Fatalf("the spam's labels are %v, want it in the Trash", labels)
	}
	return card
}

// restored waits until the card's gmail.restore action is done and
// checks the mail is back in the inbox, untrashed exactly once.
func restored(t *testing.T, d *gmailtest.Desktop, g *gmailtest.Google, card scouts.Suggestion, id string) {
	t.Helper()
	ctx := context.Background()
	var run engine.ActionRun
	d.Until("the restore to be done", func() bool {
		runs, err := d.Core.DB.ActionRuns(ctx, card.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Action == actions.GmailRestore {
				run = r
			}
		}
		if run.State == engine.ActionFailed {
			t.Fatalf("the restore failed: %s", run.LastError)
		}
		return run.State == engine.ActionDone
	}, func() string { return fmt.Sprintf("(restore %+v)", run) })
	labels, _ := g.Gmail.Message(gmailtest.Account, id)
	if slices.Contains(labels, "TRASH") || !slices.Contains(labels, "INBOX") {
		t.Fatalf("after the restore the labels are %v, want the inbox", labels)
	}
	if n := g.Gmail.MessageCalls(gmailtest.Account, "messages.untrash", id); n != 1 {
		t.Fatalf("messages.untrash called %d times, want once", n)
	}
}

// Spam the scout moved to Gmail's Trash comes back to the inbox in Gmail
// when its card is brought back, through the outbox, once: a second
// bring-back queues nothing more. Both where the desktop
// reads Gmail itself and where the relay trashed it.
func TestBringingBackTrashedSpamRestoresTheMailOnce(t *testing.T) {
	for _, mode := range []string{gmaildesk.Local, gmaildesk.RelayTriage} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			g := gmailtest.NewGoogle(t)
			d, r := g.OpenConnected(t, mode)
			sc := trashingScout(t, d, mode)
			d.WaitBaseline(r, sc.ID)
			id := deliverSpam(t, g)
			card := spamCard(t, d, g, sc.ID, id)

			back, err := d.Core.Engine.BringBack(ctx, card.ID, "test")
			if err != nil || back.Lane != scouts.LaneInbox {
				t.Fatalf("bring back: %+v %v", back, err)
			}
			restored(t, d, g, card, id)
			if _, err := d.Core.Engine.BringBack(ctx, card.ID, "test"); err != nil {
				t.Fatal(err)
			}
			runs, _ := d.Core.DB.ActionRuns(ctx, card.ID)
			if len(runs) != 1 || runs[0].Phase != engine.PhaseLane || runs[0].Key != engine.ActionKey(card.ID, 1) {
				t.Fatalf("actions after a second bring-back: %+v", runs)
			}
		})
	}
}

// The decision is recorded, and the agent stops before the outbox runs
// it: the restore runs once when the agent starts again.
func TestARestoreDecidedBeforeARestartRunsOnceAfterIt(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	d, _ := g.OpenConnected(t, gmaildesk.Local)
	sc := trashingScout(t, d, gmaildesk.Local)
	d.WaitBaseline(nil, sc.ID)
	id := deliverSpam(t, g)
	card := spamCard(t, d, g, sc.ID, id)
	dir := d.Dir
	d.Close()

	stopped := g.OpenDesktop(t, dir, gmailtest.DesktopOptions{Stopped: true})
	if _, err := stopped.Core.Engine.BringBack(ctx, card.ID, "test"); err != nil {
		t.Fatal(err)
	}
	runs, _ := stopped.Core.DB.ActionRuns(ctx, card.ID)
	if len(runs) != 1 || runs[0].Action != actions.GmailRestore || runs[0].State != engine.ActionQueued {
		t.Fatalf("recorded with the bring-back: %+v", runs)
	}
	stopped.Close()
	if n := g.Gmail.MessageCalls(gmailtest.Account, "messages.untrash", id); n != 0 {
		t.Fatalf("messages.untrash called %d times before the restart", n)
	}

	restored(t, g.OpenDesktop(t, dir, gmailtest.DesktopOptions{}), g, card, id)
}
