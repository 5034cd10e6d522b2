package mailtext

import (
	"strings"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts/triage"
)

// maxPartBytes bounds the bytes of one part that are converted to text:
// a 2,000-character excerpt never needs megabytes of markup.
const maxPartBytes = 1 << 20

// Extract returns the plain text of raw mail, cut to maxRunes runes on a
// rune boundary (maxRunes <= 0: no cut).
func Extract(raw []byte, maxRunes int) (string, error) {
	p, err := ParseMIME(raw)
	if err != nil {
		return "", err
	}
	return Text(p, maxRunes), nil
}

// Text returns the readable text of a MIME tree: in multipart/alternative
// the text/plain version is preferred and HTML converted only when there is
// no usable plain text; in other multiparts every inline text part is
// read, in order; attachments and non-text parts are skipped; attached
// messages (message/rfc822) are read like the rest.
func Text(p *Part, maxRunes int) string {
	t := &textCollector{max: maxRunes}
	t.collect(p)
	s := strings.TrimSpace(t.b.String())
	if maxRunes > 0 {
		s = triage.Truncate(s, maxRunes)
	}
	return s
}

type textCollector struct {
	max int
	b   strings.Builder
}

// full reports that enough text was collected.
func (t *textCollector) full() bool {
	return t.max > 0 && t.b.Len() >= t.max && utf8.RuneCountInString(t.b.String()) >= t.max
}

func (t *textCollector) add(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if t.b.Len() > 0 {
		t.b.WriteString("\n\n")
	}
	t.b.WriteString(s)
}

func (t *textCollector) collect(p *Part) {
	if t.full() {
		return
	}
	switch {
	case p.MediaType == "multipart/alternative":
		for _, c := range rankAlternatives(p.Parts) {
			before := t.b.Len()
			t.collect(c)
			if t.b.Len() > before {
				return
			}
		}
	case strings.HasPrefix(p.MediaType, "multipart/"), p.MediaType == "message/rfc822":
		for _, c := range p.Parts {
			t.collect(c)
		}
	case isAttachment(p):
	case p.MediaType == "text/plain":
		if looksLikeHTML(p.Body) {
			t.add(HTMLToText(partString(p)))
			return
		}
		t.add(plainText(partString(p)))
	case p.MediaType == "text/html":
		t.add(HTMLToText(partString(p)))
	}
}

// rankAlternatives orders the versions of a multipart/alternative: plain
// text first, then anything holding plain text, then the rest in order.
func rankAlternatives(parts []*Part) []*Part {
	ranked := make([]*Part, 0, len(parts))
	for _, want := range []func(*Part) bool{
		func(p *Part) bool { return p.MediaType == "text/plain" },
		func(p *Part) bool { return p.MediaType != "text/plain" && holdsPlain(p) },
		func(p *Part) bool { return p.MediaType != "text/plain" && !holdsPlain(p) },
	} {
		for _, p := range parts {
			if want(p) {
				ranked = append(ranked, p)
			}
		}
	}
	return ranked
}

func holdsPlain(p *Part) bool {
	if p.MediaType == "text/plain" && !isAttachment(p) {
		return true
	}
	for _, c := range p.Parts {
		if holdsPlain(c) {
			return true
		}
	}
	return false
}

// hasAttachment reports whether a message's structure holds an attachment
// (for rules' has_attachment).
func hasAttachment(p *Part) *bool {
	var walk func(p *Part, depth int) bool
	walk = func(p *Part, depth int) bool {
		if isAttachment(p) {
			return true
		}
		for _, c := range p.Parts {
			if depth < maxDepth && walk(c, depth+1) {
				return true
			}
		}
		return false
	}
	b := p != nil && walk(p, 0)
	return &b
}

// isAttachment reports a part meant to be saved, not read: declared as an
// attachment, or named without being declared inline.
func isAttachment(p *Part) bool {
	return p.Disposition == "attachment" || p.Filename != "" && p.Disposition != "inline"
}

// partString decodes a part's body from its charset, bounded.
func partString(p *Part) string {
	b := p.Body
	if len(b) > maxPartBytes {
		b = b[:maxPartBytes]
	}
	return decodeCharset(b, p.Params["charset"])
}

// plainText normalises plain text: line breaks kept, other control
// characters and runs of spaces collapsed, at most one empty line in a row.
func plainText(s string) string {
	var w textBuilder
	w.plain(strings.ReplaceAll(s, "\r\n", "\n"), true)
	return w.String()
}

// HTML returns the first inline text/html part of a MIME tree, decoded from
// its charset, or "" when the mail has none. It is raw markup from a
// stranger: callers must sanitise it before showing it.
func HTML(p *Part) string {
	return findHTML(p, 0)
}

func findHTML(p *Part, depth int) string {
	if p == nil || depth > maxDepth {
		return ""
	}
	if p.MediaType == "text/html" && !isAttachment(p) {
		return partString(p)
	}
	for _, c := range p.Parts {
		if s := findHTML(c, depth+1); s != "" {
			return s
		}
	}
	return ""
}
