package triage

import (
	"strings"
	"unicode"
)

// compiledRule is a Rule with its entries normalised once, so that matching
// a mail is a few map lookups.
type compiledRule struct {
	id      string
	action  Action
	senders map[string]bool
	domains []string
	lists   map[string]bool
	words   map[string]bool
}

func compileRule(r Rule) compiledRule {
	c := compiledRule{id: r.ID, action: r.Action}
	if len(r.Senders) > 0 {
		c.senders = make(map[string]bool, len(r.Senders))
		for _, s := range r.Senders {
			c.senders[strings.ToLower(strings.TrimSpace(s))] = true
		}
	}
	for _, d := range r.Domains {
		c.domains = append(c.domains, strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), ".")))
	}
	if len(r.ListIDs) > 0 {
		c.lists = make(map[string]bool, len(r.ListIDs))
		for _, l := range r.ListIDs {
			c.lists[NormalizeListID(l)] = true
		}
	}
	if len(r.SubjectWords) > 0 {
		c.words = make(map[string]bool, len(r.SubjectWords))
		for _, w := range r.SubjectWords {
			c.words[strings.ToLower(strings.TrimSpace(w))] = true
		}
	}
	return c
}

// match reports whether every filled list of the rule matches the mail, and
// which one was the most telling, for the card's reason.
func (c compiledRule) match(m *Message, subjectWords []string) (bool, string) {
	var what string
	if c.senders != nil {
		if !c.senders[m.From.Addr] {
			return false, ""
		}
		what = "sender " + m.From.Addr
	}
	if c.domains != nil {
		d := m.From.Domain()
		ok := false
		for _, want := range c.domains {
			if d == want || strings.HasSuffix(d, "."+want) {
				ok = true
				break
			}
		}
		if !ok {
			return false, ""
		}
		if what == "" {
			what = "domain " + d
		}
	}
	if c.lists != nil {
		if m.ListID == "" || !c.lists[m.ListID] {
			return false, ""
		}
		if what == "" {
			what = "list " + m.ListID
		}
	}
	if c.words != nil {
		found := ""
		for _, w := range subjectWords {
			if c.words[w] {
				found = w
				break
			}
		}
		if found == "" {
			return false, ""
		}
		if what == "" {
			what = "subject word \"" + found + "\""
		}
	}
	return true, what
}

// words splits text into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
