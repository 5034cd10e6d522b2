package triage

import (
	"net/mail"
	"strings"
	"unicode"
)

// Sign is a weak, content-free hint that a mail is unsolicited. One sign
// alone decides nothing (honest mail shows each of them now and then); the
// suspicious-headers heuristic needs two.
type Sign struct {
	Name   string
	Reason string // a clause for the card: "sent to undisclosed recipients"
}

// WeakSigns returns the weak signs a mail shows, in a fixed order.
func WeakSigns(m *Message) []Sign {
	var signs []Sign
	if undisclosed(m) {
		signs = append(signs, Sign{"undisclosed-recipients", "sent to undisclosed recipients"})
	}
	if manyRecipients(m) {
		signs = append(signs, Sign{"many-recipients", "sent openly to a long list of strangers"})
	}
	if Shouting(m.Subject) {
		signs = append(signs, Sign{"subject-shouting", "subject in capitals or with !!!"})
	}
	if nameIsOtherAddress(m.From) {
		signs = append(signs, Sign{"display-name-mismatch", "the sender's name is a different address"})
	}
	if m.From.Addr == "" || !strings.Contains(m.From.Domain(), ".") {
		signs = append(signs, Sign{"sender-invalid", "no valid sender address"})
	}
	if m.DateInvalid {
		signs = append(signs, Sign{"date-invalid", "an impossible Date header"})
	}
	return signs
}

// undisclosed reports that no recipient address is visible: the To header
// is missing, empty or an empty group ("undisclosed-recipients:;"), and
// there is no Cc. Mailing lists name the list, personal mail names you.
func undisclosed(m *Message) bool {
	for _, l := range [][]Address{m.To, m.Cc} {
		for _, a := range l {
			if a.Addr != "" {
				return false
			}
		}
	}
	return true
}

// manyRecipients reports a mail whose visible recipients are many (10 or
// more) and spread over many organisations (5 or more): a harvested address
// list pasted into To. Group mail among friends can look like this too,
// which is why it is only a weak sign.
func manyRecipients(m *Message) bool {
	if len(m.To)+len(m.Cc) < 10 {
		return false
	}
	orgs := map[string]bool{}
	for _, l := range [][]Address{m.To, m.Cc} {
		for _, a := range l {
			if d := a.Domain(); d != "" {
				orgs[org(d)] = true
			}
		}
	}
	return len(orgs) >= 5
}

// Shouting reports a subject written mostly in capitals (at least 10
// letters with a case, 80 % of them upper case) or with three or more
// exclamation marks.
func Shouting(subject string) bool {
	if strings.Count(subject, "!") >= 3 {
		return true
	}
	upper, cased := 0, 0
	for _, r := range subject {
		switch {
		case unicode.IsUpper(r):
			upper++
			cased++
		case unicode.IsLower(r):
			cased++
		}
	}
	return cased >= 10 && upper*5 >= cased*4
}

// nameIsOtherAddress reports a display name that is itself a mail address
// at another organisation than the real one: "service@paypal.com"
// <x@example.net>. The organisation is compared on the last two labels of
// the domain, which is coarse (co.uk) but only ever errs towards silence.
func nameIsOtherAddress(a Address) bool {
	if a.Addr == "" || !strings.Contains(a.Name, "@") {
		return false
	}
	for _, f := range strings.FieldsFunc(a.Name, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'<>()[],;:", r)
	}) {
		if !strings.Contains(f, "@") {
			continue
		}
		p, err := mail.ParseAddress(f)
		if err != nil {
			continue
		}
		if org((Address{Addr: p.Address}).Domain()) != org(a.Domain()) {
			return true
		}
	}
	return false
}

// org is the last two labels of a domain.
func org(domain string) string {
	labels := strings.Split(domain, ".")
	if len(labels) <= 2 {
		return domain
	}
	return strings.Join(labels[len(labels)-2:], ".")
}

// IsNoReply reports a sender address whose local part says replies go
// nowhere: no-reply@, noreply+x@, do-not-reply@, donotreply@, … .
func IsNoReply(a Address) bool {
	local := a.Local()
	if i := strings.IndexByte(local, '+'); i >= 0 {
		local = local[:i]
	}
	local = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' {
			return -1
		}
		return r
	}, local)
	for _, p := range [...]string{"noreply", "donotreply", "noresponse", "mailerdaemon", "nobody"} {
		if strings.HasPrefix(local, p) {
			return true
		}
	}
	return false
}
