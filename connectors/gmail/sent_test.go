package gmail_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/gmail"
)

// TestSyncReadsTheRecipientsOfSentMail: with SentTo set (a desktop
// learner), the recipients of the mail the person sent are handed over and
// the sent mail never becomes a verdict; without it, sent mail is not read.
func TestSyncReadsTheRecipientsOfSentMail(t *testing.T) {
	for _, learn := range []bool{true, false} {
		e := newEnv(t)
		sink := &memSink{}
		var to []string
		s := &gmail.Syncer{Client: e.client, Pipeline: pipeline(t), Sink: sink}
		if learn {
			s.SentTo = func(_ context.Context, rcpt []string) error { to = append(to, rcpt...); return nil }
		}
		res, err := s.Run(context.Background(), 0, time.Time{})
		if err != nil || !res.Baseline {
			t.Fatalf("baseline: %+v, %v", res, err)
		}
		e.deliver(t, personal(1), "INBOX")
		e.deliver(t, `From: Ann <ann@example.com>
To: Bob Example <bob@partner.example>
Cc: carol@friends.example
Subject: Re: Contract draft 1
Date: Mon, 2 Nov 2026 11:00:00 +0000
Content-Type: text/plain

Will do.
`, "SENT")
		if _, err := s.Run(context.Background(), res.Cursor, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if len(sink.all) != 1 {
			t.Fatalf("verdicts: %+v", sink.all)
		}
		want := []string(nil)
		if learn {
			want = []string{"bob@partner.example", "carol@friends.example"}
		}
		if !slices.Equal(to, want) {
			t.Fatalf("learn=%v: recipients %q, want %q", learn, to, want)
		}
	}
}
