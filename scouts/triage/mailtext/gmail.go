package mailtext

import (
	"encoding/base64"
	"strings"

	"github.com/scouts-hq/scouts/scouts/triage"
)

// GmailPart mirrors a Gmail API MessagePart (users.messages.get with
// format=full): the decoded JSON "payload" of a message.
type GmailPart struct {
	MimeType string        `json:"mimeType"`
	Filename string        `json:"filename"`
	Headers  []GmailHeader `json:"headers"`
	Body     struct {
		Data         string `json:"data"` // base64url
		Size         int    `json:"size"`
		AttachmentID string `json:"attachmentId"`
	} `json:"body"`
	Parts []GmailPart `json:"parts"`
}

// GmailHeader is one header of a GmailPart.
type GmailHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// GmailMessage turns a Gmail payload into a triage.Message, with the body
// text cut to bodyRunes (0: no body), the labels and the id given.
func GmailMessage(id string, labels []string, payload GmailPart, bodyRunes int) triage.Message {
	m := FromHeader(gmailHeader(payload.Headers))
	m.ID, m.Labels = id, labels
	if bodyRunes > 0 {
		count := 0
		tree := payload.part(0, &count)
		m.Body = Text(tree, bodyRunes)
		m.HasAttachment = hasAttachment(tree)
	}
	return m
}

// Part converts the payload into the MIME tree that Text reads. Gmail has
// already removed the transfer encodings; the data is base64url. Parts
// whose content is stored apart (attachmentId) have no Body here, which is
// fine: attachments are not read.
func (g GmailPart) Part() *Part {
	count := 0
	return g.part(0, &count)
}

func (g GmailPart) part(depth int, count *int) *Part {
	*count++
	h := gmailHeader(g.Headers)
	p := &Part{Header: h, MediaType: "text/plain", Params: map[string]string{}}
	if ct := h.Get("Content-Type"); ct != "" {
		p.MediaType, p.Params = parseMediaType(ct)
	}
	if g.MimeType != "" {
		p.MediaType = strings.ToLower(g.MimeType)
	}
	if cd := h.Get("Content-Disposition"); cd != "" {
		p.Disposition, _ = parseMediaType(cd)
	}
	p.Filename = g.Filename
	p.Body = decodeBase64URL(g.Body.Data)
	if depth < maxDepth {
		for _, c := range g.Parts {
			if *count >= maxParts {
				break
			}
			p.Parts = append(p.Parts, c.part(depth+1, count))
		}
	}
	return p
}

func gmailHeader(hs []GmailHeader) Header {
	h := make(Header, 0, len(hs))
	for _, f := range hs {
		h = append(h, Field{Name: f.Name, Value: strings.TrimSpace(f.Value)})
	}
	return h
}

// decodeBase64URL accepts Gmail's base64url with or without padding.
func decodeBase64URL(s string) []byte {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return decodeBase64([]byte(strings.NewReplacer("-", "+", "_", "/").Replace(s)))
	}
	return b
}
