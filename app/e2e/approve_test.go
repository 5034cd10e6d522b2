package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Approving a Gmail card answers from the agent's own database: the fake
// Gmail holds every read and modify at its door, and the approval (a note,
// with the archive ticked by default) answers all the same, with the
// card's excerpt and its text to come. Only then do the outbox's calls
// reach Gmail; released, the mail is archived once and the note gets the
// mail's text, read once.
func TestApproveAnswersBeforeGmailIsCalled(t *testing.T) {
	ctx := context.Background()
	w := startGmailWorld(t, "local", "")
	id, _, err := w.g.gmail.Deliver(gmailUser, personalMail(7, "approve-fast"))
	if err != nil {
		t.Fatal(err)
	}
	card := waitGmailSuggestions(t, w.a, w.a.events(t), w.scout, []string{id})[0]
	gets := w.g.gmail.MessageCalls(gmailUser, "messages.get", id)
	release := w.g.gmail.Hold("messages.get", "messages.modify", "messages.trash", "labels.list")
	defer release()

	note, err := w.a.client.Approve(ctx, card.ID, apitype.Approve{As: "note"})
	if err != nil {
		t.Fatal(err)
	}
	if !note.BodyPending || note.Body != card.Excerpt {
		t.Fatalf("the approval answered %+v: want the card's excerpt %q, its text to come", note, card.Excerpt)
	}
	if calls, _, _ := w.g.gmail.Modifications(gmailUser, id); calls != 0 || w.g.gmail.MessageCalls(gmailUser, "messages.get", id) != gets {
		t.Fatalf("Gmail answered calls before the approval did: %d modify, %d reads", calls, w.g.gmail.MessageCalls(gmailUser, "messages.get", id)-gets)
	}
	// The outbox's first call reaches the door after the answer.
	waitOn(t, on(w.g.gmail.Next), "the outbox's first Gmail call", func() bool {
		return w.g.gmail.Waiting("messages.get")+w.g.gmail.Waiting("messages.modify") > 0
	})
	if got, err := w.a.client.Entity(ctx, "note", note.ID); err != nil || !got.BodyPending {
		t.Fatalf("while Gmail holds the read: %+v, %v", got, err)
	}

	release()
	waitOn(t, on(w.a.changed()), "the archive and the note's text", func() bool {
		got, err := w.a.client.Entity(ctx, "note", note.ID)
		labels, _ := w.g.gmail.Message(gmailUser, id)
		return err == nil && !got.BodyPending && !slices.Contains(labels, "INBOX")
	}, func() string {
		got, _ := w.a.client.Entity(ctx, "note", note.ID)
		labels, _ := w.g.gmail.Message(gmailUser, id)
		return fmt.Sprintf("note %+v, labels %v", got, labels)
	})
	got, _ := w.a.client.Entity(ctx, "note", note.ID)
	if !strings.Contains(got.Body, "please review draft 7 (approve-fast) by Friday") {
		t.Errorf("note body %q: want the mail's text", got.Body)
	}
	if calls, _, removed := w.g.gmail.Modifications(gmailUser, id); calls != 1 || removed["INBOX"] != 1 {
		t.Errorf("archive: %d modify calls, INBOX removed %d times; want once", calls, removed["INBOX"])
	}
	if n := w.g.gmail.MessageCalls(gmailUser, "messages.get", id) - gets; n != 1 {
		t.Errorf("the mail was read %d times after the approval, want once", n)
	}
}
