package gmailscout

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/gmail"
	"github.com/scouts-hq/scouts/relay"
	"github.com/scouts-hq/scouts/relay/protocol"
)

// Gmail's notification carries historyId as a number, some re-publishers
// as a string; either is read, and what is not a notification is refused
// with what is wrong.
func TestDecodeNotification(t *testing.T) {
	for _, c := range []struct {
		data, email string
		id          uint64
		err         string
	}{
		{`{"emailAddress":"Ann@Example.com","historyId":12345}`, "ann@example.com", 12345, ""},
		{`{"emailAddress":"ann@example.com","historyId":"678"}`, "ann@example.com", 678, ""},
		{`{"historyId":1}`, "", 0, "no emailAddress"},
		{`{"emailAddress":"ann@example.com","historyId":"soon"}`, "", 0, `historyId "soon"`},
		{`not json`, "", 0, "notification"},
	} {
		email, id, err := DecodeNotification([]byte(c.data))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want one saying %q", c.data, err, c.err)
			}
			continue
		}
		if err != nil || email != c.email || id != c.id {
			t.Errorf("%s: %q %d %v, want %q %d", c.data, email, id, err, c.email, c.id)
		}
	}
}

// A card is kept briefly and handed out once; the memory stays bounded,
// and the card just put is kept when it is full.
func TestCardCacheHandsOutEachCardOnceWithinItsTime(t *testing.T) {
	now := time.Now()
	c := newCardCache(func() time.Time { return now }, time.Minute, 2)
	c.put("sc", "m1", gmail.Card{Subject: "one"}, "why one")
	if got, ok := c.take("sc", "m1"); !ok || got.card.Subject != "one" || got.reason != "why one" {
		t.Fatalf("take m1: %+v %v", got, ok)
	}
	if _, ok := c.take("sc", "m1"); ok {
		t.Fatal("a card was handed out twice")
	}
	c.put("sc", "m2", gmail.Card{Subject: "two"}, "")
	now = now.Add(2 * time.Minute)
	if _, ok := c.take("sc", "m2"); ok {
		t.Fatal("a card older than its time was handed out")
	}
	for _, ref := range []string{"a", "b", "c"} {
		c.put("sc", ref, gmail.Card{Subject: ref}, "")
	}
	if n := len(c.m); n > 2 {
		t.Fatalf("%d cards kept, bound 2", n)
	}
	if _, ok := c.take("sc", "c"); !ok {
		t.Fatal("the newest card was dropped to make room")
	}
}

// A Gmail proposal's card is filled at delivery from memory when the mail
// was just triaged, else read from Gmail again; other proposals are left
// alone.
func TestEnrichFillsTheCardFromMemoryThenFromGmail(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.addScout("sc_a", relay.ModeRelayTriage)
	e.baseline("sc_a")
	mail := e.deliver("Contract draft", "Bob <bob@partner.example>")
	if err := e.sync("sc_a", false); err != nil {
		t.Fatal(err)
	}
	reads := e.gmail.Calls(ann)["messages.get"]
	row := relay.QueueItem{ScoutID: "sc_a", SourceType: relay.KindGmail, SourceRef: mail}

	var p protocol.Proposal
	e.svc.Enrich(ctx, row, &p)
	if p.Subject != "Contract draft" || !strings.Contains(p.Sender, "bob@partner.example") || p.Reason == "" {
		t.Fatalf("from memory: %+v", p)
	}
	if n := e.gmail.Calls(ann)["messages.get"]; n != reads {
		t.Fatalf("a card in memory was read from Gmail again (%d → %d reads)", reads, n)
	}

	var again protocol.Proposal
	e.svc.Enrich(ctx, row, &again) // delivered once already: no longer in memory
	if again.Subject != "Contract draft" || again.Snippet == "" {
		t.Fatalf("read again: %+v", again)
	}
	if n := e.gmail.Calls(ann)["messages.get"]; n != reads+1 {
		t.Fatalf("%d reads after a card left memory, want %d", n, reads+1)
	}

	var hook protocol.Proposal
	e.svc.Enrich(ctx, relay.QueueItem{ScoutID: "sc_hook", SourceType: relay.KindWebhook, SourceRef: "x"}, &hook)
	if hook.Subject != "" || hook.Sender != "" || hook.Snippet != "" || hook.Reason != "" {
		t.Fatalf("a webhook proposal was changed: %+v", hook)
	}
}

// Without token keys a refresh token cannot be kept: relay-triage is
// refused with what to do instead.
func TestSealTokenWithoutKeysSaysWhatToUse(t *testing.T) {
	s := New(Config{})
	if s.TriageAvailable() {
		t.Fatal("relay-triage available without keys")
	}
	if _, err := s.SealToken("sc", "rt"); err == nil || !strings.Contains(err.Error(), "relay-ping") {
		t.Fatalf("seal without keys: %v", err)
	}
}
