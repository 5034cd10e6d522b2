package mailtext

import (
	"bytes"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// decodeCharset converts text in the named charset to UTF-8. The names are
// resolved as browsers do (WHATWG labels: "latin1" and "us-ascii" mean
// windows-1252, "gb2312" means GBK, …). An unknown or missing charset is
// read as UTF-8 when the bytes are valid UTF-8, else as windows-1252, the
// most common undeclared charset in Western mail. Invalid sequences become
// U+FFFD; the result is always valid UTF-8.
func decodeCharset(b []byte, charset string) string {
	charset = strings.ToLower(strings.Trim(strings.TrimSpace(charset), `"'`))
	if isUTF8Label(charset) || charset == "" || charset == "us-ascii" || charset == "ascii" {
		if utf8.Valid(b) {
			return string(b)
		}
		if isUTF8Label(charset) {
			return strings.ToValidUTF8(string(b), "\uFFFD")
		}
		charset = "windows-1252"
	}
	enc := lookupCharset(charset)
	if enc == nil {
		if utf8.Valid(b) {
			return string(b)
		}
		enc = charmap.Windows1252
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

func isUTF8Label(s string) bool { return s == "utf-8" || s == "utf8" }

// lookupCharset resolves a charset label, or returns nil.
func lookupCharset(label string) encoding.Encoding {
	enc, err := htmlindex.Get(label)
	if err != nil {
		// Labels mailers write that the WHATWG list lacks.
		switch strings.ReplaceAll(label, "_", "-") {
		case "iso-8859-8-i", "visual":
			enc, err = htmlindex.Get("iso-8859-8")
		case "cp1252", "x-cp1252", "ansi":
			enc, err = htmlindex.Get("windows-1252")
		case "cp1251", "x-cp1251":
			enc, err = htmlindex.Get("windows-1251")
		case "cp866", "ibm866":
			enc, err = htmlindex.Get("ibm866")
		}
		if err != nil {
			return nil
		}
	}
	return enc
}

// wordDecoder decodes RFC 2047 encoded words in any charset lookupCharset
// knows.
func wordDecoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: func(charset string, input io.Reader) (io.Reader, error) {
		b, err := io.ReadAll(io.LimitReader(input, 1<<20))
		if err != nil {
			return nil, err
		}
		return strings.NewReader(decodeCharset(b, charset)), nil
	}}
}

// decodeHeaderText decodes encoded words, and reads raw 8-bit bytes (which
// RFC 5322 forbids, and spam uses) as UTF-8 or windows-1252.
func decodeHeaderText(dec *mime.WordDecoder, s string) string {
	if !utf8.ValidString(s) {
		s = decodeCharset([]byte(s), "")
	}
	if strings.Contains(s, "=?") {
		if d, err := dec.DecodeHeader(s); err == nil {
			s = d
		}
	}
	return collapseSpace(s)
}

// collapseSpace turns runs of white space and control characters into one
// space and trims the ends.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == 0xa0 {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// looksLikeHTML sniffs a body declared as plain text (or not declared) that
// is really HTML.
func looksLikeHTML(b []byte) bool {
	head := b
	if len(head) > 1024 {
		head = head[:1024]
	}
	head = bytes.ToLower(head)
	return bytes.Contains(head, []byte("<html")) || bytes.Contains(head, []byte("<body")) || bytes.Contains(head, []byte("<!doctype html"))
}
