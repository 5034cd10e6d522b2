package triage

import (
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/scouts/learn"
)

// LearnItem is what the learner reads of a mail: the sender, the list, the
// subject and body words, and content-free signs from the headers and
// labels the product reads (never the collector's or a filter's X-
// headers). Transient, like the Message.
func LearnItem(m Message) learn.Item {
	it := learn.Item{Sender: m.From.Addr, ListID: m.ListID, Subject: m.Subject, Body: m.Body}
	sign := func(s string) { it.Signs = append(it.Signs, s) }
	if m.ListUnsubscribe != "" {
		sign("list-unsubscribe")
	}
	if m.Precedence != "" {
		sign("precedence:" + m.Precedence)
	}
	if m.AutoSubmitted != "" && m.AutoSubmitted != "no" {
		sign("auto-submitted")
	}
	if IsNoReply(m.From) {
		sign("no-reply")
	}
	for _, s := range WeakSigns(&m) {
		sign("sign:" + s.Name)
	}
	if m.From.Name != "" {
		sign("name:" + strings.ToLower(m.From.Name))
	}
	rcpt := 0
	for _, l := range [][]Address{m.To, m.Cc} {
		for _, a := range l {
			rcpt++
			if d := a.Domain(); d != "" && rcpt <= 10 {
				sign("to-domain:" + d)
			}
		}
	}
	sign("rcpt:" + strconv.Itoa(min(rcpt, 6)))
	if m.Date.IsZero() {
		sign("no-date")
	} else {
		sign("zone:" + m.Date.Format("-0700"))
	}
	for _, l := range m.Labels {
		if strings.HasPrefix(l, "CATEGORY_") || l == LabelSpam || l == "IMPORTANT" || l == "STARRED" {
			sign("label:" + strings.ToLower(l))
		}
	}
	if len(m.AuthResults) > 0 {
		for _, k := range []string{"dkim=pass", "spf=pass", "dmarc=pass", "dkim=fail", "spf=fail", "dmarc=fail", "spf=softfail"} {
			if strings.Contains(strings.ToLower(m.AuthResults[0]), k) {
				sign("auth:" + k)
			}
		}
	}
	return it
}
