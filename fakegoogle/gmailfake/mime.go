package gmailfake

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"strings"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// part is one MIME entity of a stored message, parsed once at delivery.
type part struct {
	partID   string
	mimeType string
	filename string
	headers  []wireHeader
	body     []byte // after transfer decoding, in the part's own charset
	charset  string
	parts    []*part
}

// attachment reports whether Gmail would serve the body by attachmentId
// rather than inline: anything named, and anything that is not text.
func (p *part) attachment() bool {
	return p.filename != "" || !strings.HasPrefix(p.mimeType, "text/")
}

func (p *part) header(name string) string {
	for _, h := range p.headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// parseEntity parses one RFC 822 / MIME entity. Header order and case are
// kept (net/mail and mime/multipart would lose them, and Gmail keeps them),
// and nothing fails: malformed mail is served as well as it can be, as
// Gmail does, because spam is often malformed.
func parseEntity(raw []byte, partID string) *part {
	hdrs, body := splitHeader(raw)
	p := &part{partID: partID, headers: hdrs}
	ct := p.header("Content-Type")
	mediaType, params, err := mime.ParseMediaType(ct)
	if ct == "" || (err != nil && mediaType == "") {
		mediaType, params = "text/plain", map[string]string{}
	}
	p.mimeType = strings.ToLower(mediaType)
	p.charset = strings.ToLower(params["charset"])
	p.filename = filename(p.header("Content-Disposition"), params["name"])

	if strings.HasPrefix(p.mimeType, "multipart/") && params["boundary"] != "" {
		for i, sub := range splitMultipart(body, params["boundary"]) {
			id := fmt.Sprint(i)
			if partID != "" {
				id = partID + "." + id
			}
			p.parts = append(p.parts, parseEntity(sub, id))
		}
		return p
	}
	p.body = transferDecode(strings.ToLower(strings.TrimSpace(p.header("Content-Transfer-Encoding"))), body)
	return p
}

// splitHeader separates the header block from the body and unfolds
// header lines (RFC 5322 §2.2.3: drop the CRLF before the whitespace).
// Lines that are not header fields, such as an mbox "From " line, are
// skipped.
func splitHeader(raw []byte) ([]wireHeader, []byte) {
	var hdrs []wireHeader
	rest := raw
	var cur *wireHeader
	for len(rest) > 0 {
		line := rest
		next := []byte(nil)
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, next = rest[:i], rest[i+1:]
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			rest = next
			break
		}
		rest = next
		if line[0] == ' ' || line[0] == '\t' {
			if cur != nil {
				cur.Value += string(line)
			}
			continue
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || bytes.ContainsAny(name, " \t") {
			cur = nil
			continue
		}
		hdrs = append(hdrs, wireHeader{Name: string(name), Value: string(value)})
		cur = &hdrs[len(hdrs)-1]
	}
	for i := range hdrs {
		hdrs[i].Value = decodeHeader(strings.TrimSpace(hdrs[i].Value))
	}
	if rest == nil {
		rest = []byte{}
	}
	return hdrs, rest
}

var wordDecoder = &mime.WordDecoder{CharsetReader: func(charset string, r io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return nil, fmt.Errorf("charset %q: %w", charset, err)
	}
	return enc.NewDecoder().Reader(r), nil
}}

// decodeHeader returns the header as Gmail shows it: encoded words
// decoded, raw 8-bit bytes read as Windows-1252 when they are not UTF-8.
func decodeHeader(v string) string {
	if d, err := wordDecoder.DecodeHeader(v); err == nil {
		v = d
	}
	return toUTF8(v, "")
}

func filename(disposition, name string) string {
	if _, params, err := mime.ParseMediaType(disposition); err == nil && params["filename"] != "" {
		return decodeHeader(params["filename"])
	}
	return decodeHeader(name)
}

// splitMultipart returns the raw bodies between boundary lines. A missing
// closing boundary ends the last part at the end of the input.
func splitMultipart(body []byte, boundary string) [][]byte {
	delim := []byte("--" + boundary)
	var parts [][]byte
	start := -1 // offset of the current part's first byte
	for off := 0; off <= len(body); {
		end := bytes.IndexByte(body[off:], '\n')
		lineEnd := len(body)
		if end >= 0 {
			lineEnd = off + end
		}
		line := bytes.TrimRight(body[off:lineEnd], " \t\r")
		if bytes.HasPrefix(line, delim) {
			tail := line[len(delim):]
			closing := bytes.Equal(tail, []byte("--"))
			if len(tail) == 0 || closing {
				if start >= 0 {
					parts = append(parts, trimLastNewline(body[start:off]))
				}
				if closing {
					return parts
				}
				start = lineEnd + 1
			}
		}
		if end < 0 {
			break
		}
		off = lineEnd + 1
	}
	if start >= 0 && start <= len(body) {
		parts = append(parts, body[start:])
	}
	return parts
}

// trimLastNewline drops the line break that belongs to the next boundary.
func trimLastNewline(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

func transferDecode(cte string, body []byte) []byte {
	switch cte {
	case "quoted-printable":
		out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		if err != nil {
			// Spam often carries broken escapes; keep what decoded and the rest as is.
			return append(out, body[min(len(out), len(body)):]...)
		}
		return out
	case "base64":
		clean := make([]byte, 0, len(body))
		for _, c := range body {
			if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
				clean = append(clean, c)
			}
		}
		if len(clean)%4 == 1 {
			clean = clean[:len(clean)-1]
		}
		out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
		n, _ := base64.RawStdEncoding.Decode(out, clean)
		return out[:n]
	default:
		return body
	}
}

// toUTF8 decodes text in the given charset; unknown or missing charsets
// fall back to UTF-8 when valid, else Windows-1252, as mail readers do.
func toUTF8(s, charset string) string {
	if charset != "" && charset != "utf-8" && charset != "us-ascii" {
		if enc, err := htmlindex.Get(charset); err == nil {
			if d, err := enc.NewDecoder().String(s); err == nil {
				return d
			}
		}
	}
	if utf8.ValidString(s) {
		return s
	}
	d, _ := charmap.Windows1252.NewDecoder().String(s)
	return d
}

// snippetLen is about what Gmail shows.
const snippetLen = 200

// snippet is the start of the message's text as Gmail gives it: the first
// text/plain part (else the first text/html, rendered to text), whitespace
// collapsed, cut to about 200 characters, and HTML-escaped, because Gmail's
// snippets come with entities such as &#39; that clients must unescape.
func snippet(root *part) string {
	text := ""
	if p := findText(root, "text/plain"); p != nil {
		text = toUTF8(string(p.body), p.charset)
	} else if p := findText(root, "text/html"); p != nil {
		text = htmlText(toUTF8(string(p.body), p.charset))
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > snippetLen {
		text = strings.TrimSpace(string([]rune(text)[:snippetLen]))
	}
	return snippetEscaper.Replace(text)
}

var snippetEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func findText(p *part, mimeType string) *part {
	if p.parts == nil {
		if p.mimeType == mimeType && p.filename == "" && len(bytes.TrimSpace(p.body)) > 0 {
			return p
		}
		return nil
	}
	for _, c := range p.parts {
		if f := findText(c, mimeType); f != nil {
			return f
		}
	}
	return nil
}

// htmlText renders HTML to plain text: text nodes only, outside head,
// script and style, with block elements as word breaks.
func htmlText(src string) string {
	z := xhtml.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case xhtml.StartTagToken, xhtml.EndTagToken, xhtml.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "head", "title":
				if tt == xhtml.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			case "br", "p", "div", "tr", "td", "th", "li", "table", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote":
				b.WriteByte(' ')
			}
		}
	}
}

// plainText is the decoded text of every inline text part, for free-text
// search.
func plainText(p *part) string {
	if p.parts == nil {
		if p.filename != "" || !strings.HasPrefix(p.mimeType, "text/") {
			return ""
		}
		t := toUTF8(string(p.body), p.charset)
		if p.mimeType == "text/html" {
			t = htmlText(t)
		}
		return t
	}
	var b strings.Builder
	for _, c := range p.parts {
		b.WriteString(plainText(c))
		b.WriteByte('\n')
	}
	return b.String()
}
