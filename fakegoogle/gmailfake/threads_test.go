package gmailfake

import (
	"context"
	"testing"
	"time"
)

// TestThreadsGet: users.threads.get through the real client gives the
// thread's messages oldest first — the person's sent mail (label SENT)
// and the answer that threaded onto it by In-Reply-To — with only the
// headers asked for in metadata format; an unknown thread is 404.
func TestThreadsGet(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	sent := e.deliver(t, "From: Ann <ann@example.com>\r\nTo: Ana <ana@example.org>\r\nSubject: Contract draft\r\n"+
		"Message-ID: <draft-1@example.com>\r\n\r\nHere is the draft.\r\n", "SENT")
	e.clock.Advance(time.Hour)
	other := e.deliver(t, simpleMail("unrelated"))
	e.clock.Advance(time.Hour)
	answer := e.deliver(t, "From: Ana <ana@example.org>\r\nTo: ann@example.com\r\nSubject: Re: Contract draft\r\n"+
		"In-Reply-To: <draft-1@example.com>\r\nMessage-ID: <re-1@example.org>\r\n\r\nLooks good.\r\n")

	m, err := e.svc.Users.Messages.Get("me", sent).Format("minimal").Do()
	if err != nil {
		t.Fatal(err)
	}
	th, err := e.svc.Users.Threads.Get("me", m.ThreadId).Format("metadata").MetadataHeaders("From").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if th.Id != m.ThreadId || len(th.Messages) != 2 || th.Messages[0].Id != sent || th.Messages[1].Id != answer {
		t.Fatalf("thread %s: %d messages, want %s then %s (not %s)", th.Id, len(th.Messages), sent, answer, other)
	}
	if th.HistoryId == 0 || th.Messages[0].InternalDate >= th.Messages[1].InternalDate {
		t.Fatalf("history id %d, dates %d %d", th.HistoryId, th.Messages[0].InternalDate, th.Messages[1].InternalDate)
	}
	if l := th.Messages[0].LabelIds; len(l) != 1 || l[0] != "SENT" {
		t.Fatalf("sent mail's labels: %v", l)
	}
	hs := th.Messages[1].Payload.Headers
	if len(hs) != 1 || hs[0].Name != "From" || hs[0].Value != "Ana <ana@example.org>" {
		t.Fatalf("metadata headers: %+v", hs)
	}
	if got := e.srv.Calls(ann)["threads.get"]; got != 1 {
		t.Fatalf("threads.get calls: %d", got)
	}
	_, err = e.svc.Users.Threads.Get("me", "ffffffffffffffff").Do()
	apiErr(t, err, 404, "notFound")
}
