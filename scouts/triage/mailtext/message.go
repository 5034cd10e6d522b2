package mailtext

import (
	"mime"
	"net/mail"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts/triage"
)

// Options say how much Parse reads.
type Options struct {
	// BodyRunes is how much body text to extract. Zero (the default) reads
	// headers only: the body is content, and is read only when asked.
	BodyRunes int
}

// Parse reads raw mail into a triage.Message, keeping only the fields the
// product uses. Labels and ID are the caller's (they come from the Gmail
// API, not from the mail).
func Parse(raw []byte, opts Options) (triage.Message, error) {
	if opts.BodyRunes <= 0 {
		h, _ := splitHeader(raw)
		if len(h) == 0 {
			return triage.Message{}, noMail(raw)
		}
		return FromHeader(h), nil
	}
	p, err := ParseMIME(raw)
	if err != nil {
		return triage.Message{}, err
	}
	m := FromHeader(p.Header)
	m.Body = Text(p, opts.BodyRunes)
	m.HasAttachment = hasAttachment(p)
	return m, nil
}

// FromHeader builds a Message (without body) from a header block, as
// parsed from raw mail or converted from a Gmail payload's headers.
func FromHeader(h Header) triage.Message {
	dec := wordDecoder()
	m := triage.Message{
		Subject:             decodeHeaderText(dec, h.Get("Subject")),
		ListID:              triage.NormalizeListID(decodeHeaderText(dec, h.Get("List-Id"))),
		ListUnsubscribe:     collapseSpace(h.Get("List-Unsubscribe")),
		ListUnsubscribePost: collapseSpace(h.Get("List-Unsubscribe-Post")),
		Precedence:          strings.ToLower(collapseSpace(h.Get("Precedence"))),
		AuthResults:         h.Values("Authentication-Results"),
	}
	as, _, _ := strings.Cut(h.Get("Auto-Submitted"), ";")
	m.AutoSubmitted = strings.ToLower(strings.TrimSpace(as))
	if froms := parseAddresses(dec, h.Get("From")); len(froms) > 0 {
		m.From = froms[0]
	}
	m.To = parseAddresses(dec, strings.Join(h.Values("To"), ", "))
	m.Cc = parseAddresses(dec, strings.Join(h.Values("Cc"), ", "))
	if d := h.Get("Date"); d != "" {
		m.Date, m.DateInvalid = parseDate(d)
	}
	return m
}

// parseAddresses reads an address list. When the list is malformed (spam
// writes anything there), each comma-separated item is read on its own,
// and an item with no address keeps its text as a Name with an empty Addr.
func parseAddresses(dec *mime.WordDecoder, v string) []triage.Address {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	p := mail.AddressParser{WordDecoder: dec}
	if list, err := p.ParseList(v); err == nil {
		out := make([]triage.Address, 0, len(list))
		for _, a := range list {
			out = append(out, triage.Address{Name: collapseSpace(a.Name), Addr: strings.ToLower(a.Address)})
		}
		return out
	}
	var out []triage.Address
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if a, err := p.Parse(item); err == nil {
			out = append(out, triage.Address{Name: collapseSpace(a.Name), Addr: strings.ToLower(a.Address)})
			continue
		}
		out = append(out, looseAddress(decodeHeaderText(dec, item)))
	}
	return out
}

// looseAddress salvages an address from text net/mail rejects: the part in
// angle brackets, or else a word with an '@' in it.
func looseAddress(s string) triage.Address {
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j > 0 {
			addr := strings.TrimSpace(s[i+1 : i+j])
			if strings.Contains(addr, "@") && !strings.ContainsAny(addr, " \t") {
				name := strings.Trim(strings.TrimSpace(s[:i]), `"'<> `)
				return triage.Address{Name: name, Addr: strings.ToLower(addr)}
			}
		}
	}
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, `"'<>()[],;:`)
		if at := strings.IndexByte(w, '@'); at > 0 && at < len(w)-1 {
			return triage.Address{Addr: strings.ToLower(w)}
		}
	}
	return triage.Address{Name: s}
}

// parseDate reads a Date header. invalid is set when it cannot be read or
// names a zone offset beyond ±14 hours, which no real place has.
func parseDate(v string) (t time.Time, invalid bool) {
	t, err := mail.ParseDate(v)
	if err != nil {
		// A trailing zone comment or name net/mail does not know: try
		// without it.
		if i := strings.IndexByte(v, '('); i > 0 {
			t, err = mail.ParseDate(strings.TrimSpace(v[:i]))
		}
		if err != nil {
			return time.Time{}, true
		}
	}
	_, offset := t.Zone()
	if offset > 14*3600 || offset < -14*3600 {
		return time.Time{}, true
	}
	return t, false
}

func noMail(raw []byte) error {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return scoutsInvalid("mail is empty")
	}
	return scoutsInvalid("mail has no header fields")
}
