package triage

import (
	"net/url"
	"strings"
)

// Ways a mail offers to be unsubscribed from, best first.
const (
	// UnsubscribeOneClick is RFC 8058: a POST of
	// "List-Unsubscribe=One-Click" to the HTTPS URI of List-Unsubscribe,
	// offered by a List-Unsubscribe-Post header with that value.
	UnsubscribeOneClick = "one-click"
	// UnsubscribeMailto is RFC 2369's mailto: URI: a mail to the list's
	// unsubscribe address.
	UnsubscribeMailto = "mailto"
	// UnsubscribeLink is a web page the person opens themselves: fetching
	// an arbitrary link without them could confirm anything (or nothing).
	UnsubscribeLink = "link"
)

// Unsubscribe is what a mail's List-Unsubscribe (RFC 2369) and
// List-Unsubscribe-Post (RFC 8058) headers offer. Empty fields are not
// offered.
type Unsubscribe struct {
	OneClick string // an https URI to POST List-Unsubscribe=One-Click to
	Mailto   string // a mailto: URI
	Link     string // an https (or http) URI for the person to open
}

// ParseUnsubscribe reads the two headers. List-Unsubscribe is a
// comma-separated list of <URI>s; one-click is only ever offered for an
// https URI, and only when List-Unsubscribe-Post says
// "List-Unsubscribe=One-Click" (RFC 8058 §3.1): never for http:.
func ParseUnsubscribe(header, post string) Unsubscribe {
	var u Unsubscribe
	oneClick := strings.EqualFold(strings.TrimSpace(post), "List-Unsubscribe=One-Click")
	for _, item := range strings.Split(header, ",") {
		item = strings.TrimSpace(item)
		if !strings.HasPrefix(item, "<") || !strings.HasSuffix(item, ">") {
			continue // RFC 2369: each URI in angle brackets; anything else is not one
		}
		raw := strings.TrimSpace(item[1 : len(item)-1])
		p, err := url.Parse(raw)
		if err != nil {
			continue
		}
		switch strings.ToLower(p.Scheme) {
		case "https":
			if p.Host == "" || p.User != nil {
				continue
			}
			if u.Link == "" {
				u.Link = raw
			}
			if oneClick && u.OneClick == "" {
				u.OneClick = raw
			}
		case "http":
			if p.Host != "" && p.User == nil && u.Link == "" {
				u.Link = raw
			}
		case "mailto":
			if p.Opaque != "" && u.Mailto == "" {
				u.Mailto = raw
			}
		}
	}
	return u
}

// Method is the best way the mail offers: UnsubscribeOneClick,
// UnsubscribeMailto, UnsubscribeLink, or "" for none.
func (u Unsubscribe) Method() string {
	switch {
	case u.OneClick != "":
		return UnsubscribeOneClick
	case u.Mailto != "":
		return UnsubscribeMailto
	case u.Link != "":
		return UnsubscribeLink
	}
	return ""
}

// Unsubscribe is what the message offers.
func (m Message) Unsubscribe() Unsubscribe {
	return ParseUnsubscribe(m.ListUnsubscribe, m.ListUnsubscribePost)
}
