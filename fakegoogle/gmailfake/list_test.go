package gmailfake

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/api/gmail/v1"
)

func (e *env) listAll(t *testing.T, call *gmail.UsersMessagesListCall) (ids []string, pages int, estimate int64) {
	t.Helper()
	err := call.Pages(context.Background(), func(r *gmail.ListMessagesResponse) error {
		pages++
		estimate = r.ResultSizeEstimate
		for _, m := range r.Messages {
			if m.ThreadId == "" {
				t.Errorf("message %s without threadId", m.Id)
			}
			ids = append(ids, m.Id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, pages, estimate
}

func TestListMessagesQueryAndPaging(t *testing.T) {
	e := newEnv(t)
	t0 := e.clock.Now()
	var ids []string // oldest first
	for i := range 30 {
		ids = append(ids, e.deliver(t, simpleMail(fmt.Sprint("m", i))))
		e.clock.Advance(time.Minute)
	}
	newestFirst := slices.Clone(ids)
	slices.Reverse(newestFirst)

	all, pages, est := e.listAll(t, e.svc.Users.Messages.List("me"))
	if !slices.Equal(all, newestFirst) || pages != 1 || est != 30 {
		t.Fatalf("list all: %d ids, %d pages, estimate %d", len(all), pages, est)
	}

	after := t0.Add(10 * time.Minute).Unix()
	got, pages, est := e.listAll(t, e.svc.Users.Messages.List("me").Q(fmt.Sprintf("after:%d", after)).MaxResults(7))
	if !slices.Equal(got, newestFirst[:20]) || pages != 3 || est != 20 {
		t.Fatalf("after: %d ids, %d pages, estimate %d", len(got), pages, est)
	}
	got, _, _ = e.listAll(t, e.svc.Users.Messages.List("me").Q(fmt.Sprintf("after:%d before:%d", after, after+5*60)))
	if !slices.Equal(got, newestFirst[15:20]) {
		t.Errorf("after+before: %v", got)
	}
	// Dates are read in Pacific time: 2026/03/01 starts 08:00 UTC, before t0.
	if got, _, _ := e.listAll(t, e.svc.Users.Messages.List("me").Q("after:2026/03/01")); len(got) != 30 {
		t.Errorf("after:2026/03/01 gave %d", len(got))
	}
	if got, _, _ := e.listAll(t, e.svc.Users.Messages.List("me").Q("before:2026/03/01")); len(got) != 0 {
		t.Errorf("before:2026/03/01 gave %d", len(got))
	}
	_, err := e.svc.Users.Messages.List("me").Q("after:yesterday").Do()
	apiErr(t, err, 400, "invalidArgument")
}

func TestListMessagesSpamTrashAndLabels(t *testing.T) {
	e := newEnv(t)
	inbox := e.deliver(t, simpleMail("hello"))
	spam := e.deliver(t, simpleMail("viagra"), "SPAM")
	trashed := e.deliver(t, simpleMail("old"))
	if _, err := e.svc.Users.Messages.Trash("me", trashed).Do(); err != nil {
		t.Fatal(err)
	}
	archived := e.deliver(t, simpleMail("archived"), "UNREAD")

	for _, c := range []struct {
		name string
		call *gmail.UsersMessagesListCall
		want []string
	}{
		{"default", e.svc.Users.Messages.List("me"), []string{archived, inbox}},
		{"includeSpamTrash", e.svc.Users.Messages.List("me").IncludeSpamTrash(true), []string{archived, trashed, spam, inbox}},
		{"in:inbox", e.svc.Users.Messages.List("me").Q("in:inbox -in:spam -in:trash"), []string{inbox}},
		{"in:spam", e.svc.Users.Messages.List("me").Q("in:spam"), []string{spam}},
		{"labelIds SPAM", e.svc.Users.Messages.List("me").LabelIds("SPAM"), []string{spam}},
		{"labelIds INBOX UNREAD", e.svc.Users.Messages.List("me").LabelIds("INBOX", "UNREAD"), []string{inbox}},
		{"-in:inbox", e.svc.Users.Messages.List("me").Q("-in:inbox"), []string{archived}},
		{"is:unread", e.svc.Users.Messages.List("me").Q("is:unread label:inbox"), []string{inbox}},
		{"subject", e.svc.Users.Messages.List("me").Q(`subject:"hello"`), []string{inbox}},
		{"free text", e.svc.Users.Messages.List("me").Q("about archived"), []string{archived}},
		{"unknown label", e.svc.Users.Messages.List("me").Q("label:nope"), nil},
	} {
		if got, _, _ := e.listAll(t, c.call); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	_, err := e.svc.Users.Messages.List("me").Q("a OR b").Do()
	apiErr(t, err, 400, "invalidArgument")
}
