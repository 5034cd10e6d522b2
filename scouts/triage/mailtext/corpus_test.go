package mailtext

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
)

// Every development message parses and yields valid, bounded text, and no
// mark of the corpus's collection reaches the Message.
func TestDevCorpus(t *testing.T) {
	c := corpustest.ForTest(t)
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			t.Fatal(err)
		}
		empty := 0
		for _, it := range items {
			m, err := Parse(it.Raw, Options{BodyRunes: triage.ModelBodyRunes})
			if err != nil {
				t.Errorf("%s/%s: %v", g, it.Name, err)
				continue
			}
			if !utf8.ValidString(m.Body) || utf8.RuneCountInString(m.Body) > triage.ModelBodyRunes {
				t.Errorf("%s/%s: body invalid or longer than %d runes", g, it.Name, triage.ModelBodyRunes)
			}
			if m.Body == "" {
				empty++
			}
			if _, err := Extract(it.Raw, 0); err != nil {
				t.Errorf("%s/%s: Extract: %v", g, it.Name, err)
			}
			corpus.Neutralize(&m)
			if leak := collectorMark(m); leak != "" {
				t.Errorf("%s/%s: collector mark %q survives in the Message", g, it.Name, leak)
			}
		}
		t.Logf("%s: %d messages, %d with no readable text", g, len(items), empty)
	}
}

// collectorMark returns a mark of the corpus's collection found in the
// Message's header fields, or "".
func collectorMark(m triage.Message) string {
	var fields []string
	for _, a := range append(append([]triage.Address{m.From}, m.To...), m.Cc...) {
		fields = append(fields, a.Name, a.Addr)
	}
	fields = append(fields, m.ListID, m.ListUnsubscribe, m.Precedence, m.AutoSubmitted)
	fields = append(fields, m.AuthResults...)
	fields = append(fields, fmt.Sprint(m.Labels))
	for _, f := range fields {
		low := strings.ToLower(f)
		for _, mark := range []string{"zzzz@", "yyyy@", "spamassassin.taint.org", "fetchmail", "x-spam-", "x-keywords", "delivered-to"} {
			if strings.Contains(low, mark) {
				return mark
			}
		}
	}
	return ""
}
