package gmail

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/microcosm-cc/bluemonday"
	gmailapi "google.golang.org/api/gmail/v1"

	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// metadataHeaders are the headers triage and the card read: nothing else
// of a message is fetched in metadata format.
var metadataHeaders = []string{"From", "To", "Cc", "Subject", "Date", "List-Id", "List-Unsubscribe",
	"List-Unsubscribe-Post", "Precedence", "Auto-Submitted", "Authentication-Results"}

// ModelBodyRunes is how much of a body any model ever sees.
const ModelBodyRunes = 2000

// Message is a mail as triage and a card see it: headers, labels and
// Gmail's snippet. It is transient: the relay never stores any of it.
type Message struct {
	Triage  triage.Message
	Snippet string
	// Received is Gmail's internalDate: when the mail reached the mailbox.
	Received time.Time
}

// Card is what a suggestion shows of a mail.
type Card struct {
	Subject  string
	Sender   string
	Snippet  string
	Received time.Time
}

// Card returns the message's card fields.
func (m Message) Card() Card {
	subject := m.Triage.Subject
	if strings.TrimSpace(subject) == "" {
		subject = "(no subject)"
	}
	return Card{Subject: subject, Sender: m.Triage.From.String(), Snippet: m.Snippet, Received: m.Received}
}

// Metadata reads a message's headers, labels and snippet (format=metadata):
// enough for rules, heuristics and the card, without the content.
func (c *Client) Metadata(ctx context.Context, id string) (Message, error) {
	m, err := c.get(ctx, id, "metadata")
	if err != nil {
		return Message{}, err
	}
	return convert(m, 0)
}

// MetadataAndBody reads a message whole (format=full, the same five quota
// units as headers only): the headers triage reads plus up to maxRunes of
// its text in Triage.Body. Transient, like every Message.
func (c *Client) MetadataAndBody(ctx context.Context, id string, maxRunes int) (Message, error) {
	m, err := c.get(ctx, id, "full")
	if err != nil {
		return Message{}, err
	}
	return convert(m, maxRunes)
}

// Body reads a message's text (format=full), cut to maxRunes for a model.
func (c *Client) Body(ctx context.Context, id string, maxRunes int) (string, error) {
	m, err := c.get(ctx, id, "full")
	if err != nil {
		return "", err
	}
	msg, err := convert(m, maxRunes)
	if err != nil {
		return "", err
	}
	return msg.Triage.Body, nil
}

// Full is a whole message for the desktop's "read full email": fetched on
// demand, shown, never stored.
type Full struct {
	ID       string
	ThreadID string
	Subject  string
	From     string
	To       []string
	Date     time.Time
	Labels   []string
	// Text is the readable plain text (HTML converted when there is no
	// plain version).
	Text string
	// HTML is the HTML version, if any, sanitised: no scripts, styles,
	// forms, frames or images (remote images are tracking pixels), links
	// opened outside with rel="nofollow noopener".
	HTML string
}

// Read fetches a whole message for reading.
func (c *Client) Read(ctx context.Context, id string) (Full, error) {
	m, err := c.get(ctx, id, "full")
	if err != nil {
		return Full{}, err
	}
	part, err := payload(m)
	if err != nil {
		return Full{}, err
	}
	tm := mailtext.GmailMessage(m.Id, m.LabelIds, part, 0)
	tree := part.Part()
	f := Full{ID: m.Id, ThreadID: m.ThreadId, Subject: tm.Subject, From: tm.From.String(), Date: tm.Date,
		Labels: m.LabelIds, Text: mailtext.Text(tree, 0)}
	for _, a := range tm.To {
		f.To = append(f.To, a.String())
	}
	if raw := mailtext.HTML(tree); raw != "" {
		f.HTML = sanitizer().Sanitize(raw)
	}
	return f, nil
}

// ReadText reads a message's text alone (format=full, as Read, without
// sanitising its HTML): what an approved entity keeps of it. Sanitising
// was half the cost of reading a message, for a view nobody asked for.
func (c *Client) ReadText(ctx context.Context, id string) (string, error) {
	m, err := c.get(ctx, id, "full")
	if err != nil {
		return "", err
	}
	part, err := payload(m)
	if err != nil {
		return "", err
	}
	return mailtext.Text(part.Part(), 0), nil
}

// sanitizer keeps the markup of a readable letter and nothing that runs,
// loads or submits.
func sanitizer() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowStandardURLs()
	p.AllowElements("p", "br", "hr", "div", "span", "blockquote", "pre", "code", "b", "strong", "i", "em", "u", "s",
		"sub", "sup", "small", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
		"table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "center", "font")
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("colspan", "rowspan", "align", "valign").OnElements("td", "th")
	p.RequireNoFollowOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	p.RequireNoReferrerOnLinks(true)
	return p
}

func (c *Client) get(ctx context.Context, id, format string) (*gmailapi.Message, error) {
	var m *gmailapi.Message
	err := c.call(ctx, "messages.get", unitsMessageGet, func() (err error) {
		call := c.svc.Users.Messages.Get("me", id).Format(format).Context(ctx)
		if format == "metadata" {
			call = call.MetadataHeaders(metadataHeaders...)
		}
		m, err = call.Do()
		return err
	})
	if isStatus(err, http.StatusNotFound) {
		return nil, &NotFoundError{ID: id}
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// payload converts the generated client's MessagePart into mailtext's
// mirror of it; the JSON field names are the API's own.
func payload(m *gmailapi.Message) (mailtext.GmailPart, error) {
	var p mailtext.GmailPart
	if m.Payload == nil {
		return p, nil
	}
	b, err := json.Marshal(m.Payload)
	if err != nil {
		return p, fmt.Errorf("gmail: message %s: payload: %w", m.Id, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("gmail: message %s: payload: %w", m.Id, err)
	}
	return p, nil
}

func convert(m *gmailapi.Message, bodyRunes int) (Message, error) {
	p, err := payload(m)
	if err != nil {
		return Message{}, err
	}
	out := Message{
		Triage:  mailtext.GmailMessage(m.Id, m.LabelIds, p, bodyRunes),
		Snippet: strings.TrimSpace(html.UnescapeString(m.Snippet)),
	}
	if m.InternalDate > 0 {
		out.Received = time.UnixMilli(m.InternalDate).UTC()
	}
	return out, nil
}
