package gmailfake

import (
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
)

// Held-out groups are refused before anything is read.
func TestLoadCorpusRefusesHeldOut(t *testing.T) {
	s := New(Options{})
	s.AddMailbox(ann)
	for _, g := range append(corpus.HeldOutGroups(), "spam-3") {
		if _, err := LoadCorpus(s, ann, nil, CorpusOptions{Groups: []corpus.Group{g}}); err == nil || !strings.Contains(err.Error(), "not a development group") {
			t.Errorf("group %s: %v", g, err)
		}
	}
	if s.HistoryID(ann) != 100000 {
		t.Error("something was delivered")
	}
}

// Real corpus mail, malformed spam included, is served in full format.
func TestLoadCorpus(t *testing.T) {
	c := corpustest.ForTest(t)
	e := newEnv(t)
	n, err := LoadCorpus(e.srv, ann, c, CorpusOptions{Limit: 51})
	if err != nil || n != 51 {
		t.Fatalf("loaded %d: %v", n, err)
	}
	ids, _, _ := e.listAll(t, e.svc.Users.Messages.List("me").Q("in:inbox").MaxResults(500))
	if len(ids) != 51 {
		t.Fatalf("%d messages in the inbox, want 51 (spam lands in INBOX by default)", len(ids))
	}
	empty := 0
	for _, id := range ids {
		m, err := e.svc.Users.Messages.Get("me", id).Format("full").Do()
		if err != nil {
			t.Fatalf("get %s: %v", id, err)
		}
		if m.Payload == nil || m.Payload.MimeType == "" || len(m.Payload.Headers) == 0 {
			t.Fatalf("message %s: payload %+v", id, m.Payload)
		}
		if strings.HasPrefix(m.Payload.Headers[0].Name, "From ") {
			t.Errorf("message %s still starts with the mbox line", id)
		}
		if m.Snippet == "" {
			empty++
		}
	}
	if empty > 5 {
		t.Errorf("%d of 51 messages have no snippet", empty)
	}

	spam := newEnv(t)
	if _, err := LoadCorpus(spam.srv, ann, c, CorpusOptions{Groups: []corpus.Group{corpus.Spam1}, Limit: 3, SpamToSpam: true}); err != nil {
		t.Fatal(err)
	}
	if ids, _, _ := spam.listAll(t, spam.svc.Users.Messages.List("me").LabelIds("SPAM")); len(ids) != 3 {
		t.Errorf("SpamToSpam: %d in SPAM", len(ids))
	}
}
