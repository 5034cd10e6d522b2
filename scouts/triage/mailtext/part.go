package mailtext

import (
	"bytes"
	"encoding/base64"
	"mime"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
)

// Part is one node of a MIME tree. Gmail's API returns the same tree as a
// "payload" (mimeType, headers, body.data, parts), so a payload converted
// into Parts goes through the same text extraction as raw mail.
type Part struct {
	Header      Header
	MediaType   string            // lower case, "text/plain" when undeclared
	Params      map[string]string // lower-case keys: charset, boundary, name, …
	Disposition string            // lower case: "attachment", "inline" or ""
	Filename    string
	// Body is the content with the transfer encoding (base64,
	// quoted-printable) removed, still in its charset. Empty for multipart
	// parts, whose content is in Parts.
	Body  []byte
	Parts []*Part
}

// Limits that keep any input cheap to parse.
const (
	maxDepth = 16  // nesting of multiparts and attached messages
	maxParts = 256 // parts in one message
)

// ParseMIME parses raw mail bytes into its header and MIME tree.
func ParseMIME(raw []byte) (*Part, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, scoutsInvalid("mail is empty")
	}
	count := 0
	p := parseEntity(raw, 0, &count)
	if len(p.Header) == 0 {
		return nil, scoutsInvalid("mail has no header fields")
	}
	return p, nil
}

// parseEntity parses a header block and its content; count tracks the
// parts made so far across the whole tree.
func parseEntity(raw []byte, depth int, count *int) *Part {
	*count++
	h, body := splitHeader(raw)
	p := &Part{Header: h, MediaType: "text/plain", Params: map[string]string{}}
	if ct := h.Get("Content-Type"); ct != "" {
		p.MediaType, p.Params = parseMediaType(ct)
	}
	if cd := h.Get("Content-Disposition"); cd != "" {
		d, params := parseMediaType(cd)
		p.Disposition = d
		p.Filename = params["filename"]
	}
	if p.Filename == "" {
		p.Filename = p.Params["name"]
	}
	switch {
	case strings.HasPrefix(p.MediaType, "multipart/"):
		if depth >= maxDepth {
			return p
		}
		boundary := p.Params["boundary"]
		chunks := splitMultipart(body, boundary)
		if chunks == nil {
			// Declared multipart without (findable) parts: keep the body as
			// one text part, which is what most mail readers show.
			p.MediaType, p.Body = "text/plain", decodeTransfer(body, h.Get("Content-Transfer-Encoding"))
			if looksLikeHTML(p.Body) {
				p.MediaType = "text/html"
			}
			return p
		}
		for _, c := range chunks {
			if *count >= maxParts {
				break
			}
			p.Parts = append(p.Parts, parseEntity(c, depth+1, count))
		}
	case p.MediaType == "message/rfc822" && depth < maxDepth && *count < maxParts:
		inner := decodeTransfer(body, h.Get("Content-Transfer-Encoding"))
		p.Parts = []*Part{parseEntity(inner, depth+1, count)}
	default:
		p.Body = decodeTransfer(body, h.Get("Content-Transfer-Encoding"))
	}
	return p
}

// parseMediaType parses a Content-Type or Content-Disposition value,
// falling back to the bare type when the parameters are malformed
// (mime.ParseMediaType rejects duplicate or badly quoted parameters, which
// spam is full of).
func parseMediaType(v string) (string, map[string]string) {
	mt, params, err := mime.ParseMediaType(v)
	if err == nil {
		return mt, params
	}
	params = map[string]string{}
	fields := strings.Split(v, ";")
	mt = strings.ToLower(strings.TrimSpace(fields[0]))
	for _, f := range fields[1:] {
		k, val, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if _, dup := params[k]; !dup {
			params[k] = strings.Trim(strings.TrimSpace(val), `"'`)
		}
	}
	if !strings.Contains(mt, "/") {
		mt = "text/plain"
	}
	return mt, params
}

// splitMultipart cuts a multipart body into its parts' raw bytes: what lies
// between lines "--boundary", up to "--boundary--" or the end (a missing
// close delimiter is common). The preamble and epilogue are dropped. It
// returns nil when the boundary never appears.
func splitMultipart(body []byte, boundary string) [][]byte {
	if boundary == "" {
		return nil
	}
	delim := []byte("--" + boundary)
	var parts [][]byte
	start := -1 // start of the current part's bytes
	for pos := 0; pos < len(body); {
		line, next := cutLine(body[pos:])
		lineEnd := len(body) - len(next)
		if bytes.HasPrefix(line, delim) {
			rest := bytes.TrimRight(line[len(delim):], " \t\r")
			closing := bytes.Equal(rest, []byte("--"))
			if len(rest) == 0 || closing {
				if start >= 0 {
					parts = append(parts, trimDelimiterNewline(body[start:pos]))
				}
				if closing {
					return parts
				}
				start = lineEnd
			}
		}
		pos = lineEnd
	}
	if start >= 0 {
		parts = append(parts, body[start:])
	}
	return parts
}

// trimDelimiterNewline removes the line break that belongs to the next
// delimiter (RFC 2046: the CRLF before "--boundary" is part of it).
func trimDelimiterNewline(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// decodeTransfer removes a content transfer encoding. Broken encodings
// yield what could be decoded; unknown encodings are passed through.
func decodeTransfer(b []byte, encoding string) []byte {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return decodeBase64(b)
	case "quoted-printable":
		return decodeQP(b)
	}
	return b
}

// decodeQP decodes quoted-printable leniently (mime/quotedprintable stops
// at the first bad escape, and spam has plenty): "=XX" is a byte, "=" at
// the end of a line (trailing blanks allowed) is a soft break, and any
// other "=" stays as it is.
func decodeQP(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '=' {
			out = append(out, c)
			continue
		}
		if i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
			out = append(out, unhex(b[i+1])<<4|unhex(b[i+2]))
			i += 2
			continue
		}
		j := i + 1
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		switch {
		case j == len(b):
			i = j - 1 // "=" at the very end: a soft break before nothing
		case b[j] == '\n':
			i = j
		case b[j] == '\r' && j+1 < len(b) && b[j+1] == '\n':
			i = j + 1
		default:
			out = append(out, '=')
		}
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// decodeBase64 decodes base64 leniently: white space and characters
// outside the alphabet are dropped, padding may be missing, and decoding
// stops at the first '=' padding (what follows is usually junk).
func decodeBase64(b []byte) []byte {
	clean := make([]byte, 0, len(b))
scan:
	for _, c := range b {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			clean = append(clean, c)
		case c == '=':
			break scan
		}
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1] // six lone bits make no byte
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
	n, _ := base64.RawStdEncoding.Decode(out, clean)
	return out[:n]
}

func scoutsInvalid(msg string) error { return scouts.Errorf(scouts.EInvalid, "%s", msg) }
