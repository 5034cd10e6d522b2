package mailtext

import (
	"testing"
	"unicode/utf8"
)

// FuzzExtract: no input panics, and text is always valid UTF-8 within the
// limit. `go test -fuzz FuzzExtract ./scouts/triage/mailtext` explores
// further; plain `go test` runs the seeds.
func FuzzExtract(f *testing.F) {
	for _, seed := range []string{
		"From: a@b.c\r\n\r\nhi",
		"From: a@b.c\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/html\r\n\r\n<p>a&amp;b<!--\r\n--x--",
		"From: a@b.c\r\nContent-Transfer-Encoding: base64\r\n\r\n////",
		"From: a@b.c\r\nContent-Type: message/rfc822\r\n\r\nFrom: d@e.f\r\n\r\ninner",
		"From: =?utf-8?b?////?= <x@y>\r\nTo: ;;;,<<>>\r\nDate: -1600\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := Extract(raw, 50)
		if err != nil {
			return
		}
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > 50 {
			t.Fatalf("bad text %q", s)
		}
		m, err := Parse(raw, Options{BodyRunes: 50})
		if err != nil {
			t.Fatalf("Extract succeeded but Parse failed: %v", err)
		}
		if !utf8.ValidString(m.Subject) || !utf8.ValidString(m.From.Name) {
			t.Fatalf("invalid UTF-8 in headers: %q %q", m.Subject, m.From.Name)
		}
	})
}
