package mailtext

import (
	"bytes"
	"strings"
)

// Field is one header field, unfolded, its value undecoded.
type Field struct {
	Name  string // as written
	Value string // leading and trailing space removed
}

// Header is a header block in its original order.
type Header []Field

// Get returns the first value of the field (case-insensitive name), or "".
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Values returns every value of the field, in order.
func (h Header) Values(name string) []string {
	var vs []string
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// Has reports whether the field is present.
func (h Header) Has(name string) bool {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// maxHeaderFields bounds a header block; real mail has a few dozen.
const maxHeaderFields = 1000

// splitHeader reads a header block and returns it with the body that
// follows the blank line. Continuation lines are unfolded. The block ends
// at the first empty line, or at the first line that is neither a field
// nor a continuation (malformed mail: the rest is taken as body). A leading
// mbox "From " line is skipped.
func splitHeader(raw []byte) (Header, []byte) {
	var h Header
	rest := raw
	if bytes.HasPrefix(rest, []byte("From ")) {
		rest = afterLine(rest)
	}
	for len(rest) > 0 {
		line, next := cutLine(rest)
		if len(bytes.TrimRight(line, "\r")) == 0 {
			return h, next
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(h) > 0 {
				h[len(h)-1].Value += " " + strings.TrimSpace(string(line))
			}
			rest = next
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return h, rest // not a header line: the body starts here
		}
		name := string(line[:colon])
		if validFieldName(name) && len(h) < maxHeaderFields {
			h = append(h, Field{Name: name, Value: strings.TrimSpace(string(line[colon+1:]))})
		}
		rest = next
	}
	return h, nil
}

// cutLine returns the line at the start of b (without its "\n") and what
// follows it.
func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

func afterLine(b []byte) []byte {
	_, rest := cutLine(b)
	return rest
}

// validFieldName accepts printable ASCII without spaces or colons
// (RFC 5322 ftext).
func validFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
