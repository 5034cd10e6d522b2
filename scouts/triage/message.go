package triage

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Message is what triage reads of a mail: the few headers the product uses,
// the Gmail labels, and the body text. Everything else a mail carries
// (Received hops, Delivered-To, X-* headers of filters and collectors) is
// deliberately absent, so no step can come to depend on it.
type Message struct {
	// ID identifies the item at its source (the Gmail message id); it is
	// used in logs and errors, never the subject or the body.
	ID string

	From    Address
	To, Cc  []Address
	Subject string
	Date    time.Time // zero when the header is missing or unparseable
	// DateInvalid is set when a Date header was present but could not be
	// read (or had an impossible zone), which real mailers never produce.
	DateInvalid bool

	ListID          string // the id inside List-Id's angle brackets, lower case
	ListUnsubscribe string
	// ListUnsubscribePost is the RFC 8058 List-Unsubscribe-Post header:
	// "List-Unsubscribe=One-Click" when the list accepts a one-click POST.
	ListUnsubscribePost string
	Precedence          string // lower case: bulk, list, junk, …
	AutoSubmitted       string // lower case: no, auto-generated, auto-replied, …
	// AuthResults are the Authentication-Results header values, topmost
	// (added last, by the receiving server) first.
	AuthResults []string

	// Labels are Gmail label ids (INBOX, SPAM, CATEGORY_PROMOTIONS, …).
	Labels []string

	// HasAttachment reports whether the mail carries an attachment; nil
	// when only its headers were read.
	HasAttachment *bool

	// Body is the plain text of the mail, already extracted and possibly
	// truncated. It is transient: never store or log it.
	Body string
}

// Address is one mailbox of a header. Addr is empty when the header held
// something that is not an address.
type Address struct {
	Name string
	Addr string // lower-cased local@domain
}

// Domain returns the lower-case domain of the address, or "".
func (a Address) Domain() string {
	i := strings.LastIndexByte(a.Addr, '@')
	if i < 0 {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(a.Addr[i+1:]), ".")
}

// Local returns the lower-case local part of the address, or "".
func (a Address) Local() string {
	i := strings.LastIndexByte(a.Addr, '@')
	if i < 0 {
		return ""
	}
	return strings.ToLower(a.Addr[:i])
}

func (a Address) String() string {
	if a.Name == "" {
		return a.Addr
	}
	return fmt.Sprintf("%q <%s>", a.Name, a.Addr)
}

// HasLabel reports whether the message carries the Gmail label id.
func (m Message) HasLabel(id string) bool {
	for _, l := range m.Labels {
		if strings.EqualFold(l, id) {
			return true
		}
	}
	return false
}

// String describes the message without its subject or body, so that
// printing a Message by mistake leaks nothing.
func (m Message) String() string {
	return fmt.Sprintf("message %s from %s (body %d bytes withheld)", m.ID, m.From.Domain(), len(m.Body))
}

// GoString keeps %#v as discreet as %v.
func (m Message) GoString() string { return m.String() }

// LogValue keeps structured logs to the id and the sender's domain.
func (m Message) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", m.ID), slog.String("from_domain", m.From.Domain()))
}
