package mailtext

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// crlf turns a readable test mail into the CRLF form mail has on the wire.
func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }

func extract(t *testing.T, raw []byte, max int) string {
	t.Helper()
	s, err := Extract(raw, max)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	if !utf8.ValidString(s) {
		t.Fatalf("Extract returned invalid UTF-8: %q", s)
	}
	return s
}

func TestPlainTextDefault(t *testing.T) {
	// No Content-Type: text/plain, us-ascii (RFC 2045).
	got := extract(t, crlf("From: a@example.com\nSubject: hi\n\nHello,\n\n\n\nsee   you.\n"), 0)
	if got != "Hello,\n\nsee you." {
		t.Fatalf("got %q", got)
	}
}

func TestAlternativePrefersPlain(t *testing.T) {
	raw := crlf(`From: a@example.com
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="XX"

preamble, ignored
--XX
Content-Type: text/html; charset=utf-8

<p>HTML version</p>
--XX
Content-Type: text/plain; charset=utf-8

Plain version
--XX--
epilogue, ignored
`)
	if got := extract(t, raw, 0); got != "Plain version" {
		t.Fatalf("got %q", got)
	}
}

// An empty text/plain beside the HTML (a spammer's trick, and some
// mailers' habit) must not hide the HTML.
func TestAlternativeFallsBackToHTML(t *testing.T) {
	raw := crlf(`From: a@example.com
Content-Type: multipart/alternative; boundary=b1

--b1
Content-Type: text/plain

  
--b1
Content-Type: text/html

<html><head><title>T</title><style>p{color:red}</style></head><body><p>Buy &amp; save&nbsp;now</p><script>alert(1)</script></body></html>
--b1--
`)
	if got := extract(t, raw, 0); got != "Buy & save now" {
		t.Fatalf("got %q", got)
	}
}

func TestNestedMultipart(t *testing.T) {
	// mixed > (alternative > (plain, related > (html, image)), attachment, forwarded message)
	raw := crlf(`From: a@example.com
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Caf=E9 at noon, ok?=20
Long line that was soft-=
broken.
--alt
Content-Type: multipart/related; boundary="rel"

--rel
Content-Type: text/html

<p>Caf&eacute; at noon</p>
--rel
Content-Type: image/png
Content-Transfer-Encoding: base64

iVBORw0KGgo=
--rel--
--alt--
--outer
Content-Type: text/plain; name="notes.txt"
Content-Disposition: attachment; filename="notes.txt"

attachment text, not read
--outer
Content-Type: message/rfc822

From: b@example.org
Subject: forwarded

Forwarded body.
--outer--
`)
	got := extract(t, raw, 0)
	want := "Café at noon, ok?\nLong line that was soft-broken.\n\nForwarded body."
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestBase64Lenient(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString([]byte("Grüße aus Köln, a long enough line of text."))
	// Broken into lines, with junk characters and the padding dropped.
	broken := enc[:20] + "\n" + enc[20:40] + " *\n" + strings.TrimRight(enc[40:], "=")
	raw := crlf("From: a@example.com\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: BASE64\n\n" + broken + "\n")
	if got := extract(t, raw, 0); got != "Grüße aus Köln, a long enough line of text." {
		t.Fatalf("got %q", got)
	}
}

func TestCharsets(t *testing.T) {
	enc := func(e *charmap.Charmap, s string) string {
		b, err := e.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct {
		name, charset, body, want string
	}{
		{"latin1", "iso-8859-1", enc(charmap.ISO8859_1, "déjà vu"), "déjà vu"},
		{"windows-1252 quotes", "windows-1252", enc(charmap.Windows1252, "“quoted” – €5"), "“quoted” – €5"},
		{"koi8-r", "koi8-r", enc(charmap.KOI8R, "Привет, мир"), "Привет, мир"},
		{"quoted label", `"KOI8-R"`, enc(charmap.KOI8R, "да"), "да"},
		{"utf-8", "utf-8", "naïve ☃", "naïve ☃"},
		{"undeclared 8-bit", "", enc(charmap.Windows1252, "café"), "café"},
		{"us-ascii that is not", "us-ascii", enc(charmap.Windows1252, "résumé"), "résumé"},
		{"unknown label, valid utf-8", "x-unknown", "ok ✓", "ok ✓"},
		{"unknown label, 8-bit", "x-unknown", enc(charmap.Windows1252, "señor"), "señor"},
		{"invalid utf-8", "utf-8", "bad \xff byte", "bad \uFFFD byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct := "text/plain"
			if c.charset != "" {
				ct += "; charset=" + c.charset
			}
			raw := []byte("From: a@example.com\r\nContent-Type: " + ct + "\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + c.body + "\r\n")
			if got := extract(t, raw, 0); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestHTMLToText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"<p>one</p><p>two</p>", "one\ntwo"},
		{"a<br>b<BR/>c", "a\nb\nc"},
		{"<table><tr><td>x</td><td>y</td></tr><tr><td>z</td></tr></table>", "x y\nz"},
		{"<SCRIPT type='text/javascript'>var a = '<p>no</p>';</SCRIPT>yes", "yes"},
		{"<style>\n.a { }\n</style>text", "text"},
		{"&lt;tag&gt; &amp;&amp; &#169; &#x263A; &eacute;", "<tag> && © ☺ é"},
		{"2 < 3 and 5 > 4", "2 < 3 and 5 > 4"},
		{"before<!-- hidden <p>x</p> -->after", "beforeafter"},
		{"visible<!-- never closed", "visible"},
		{`<a href="x>y">link</a> text`, "link text"},
		{"<title>unclosed title, then the body", "unclosed title, then the body"},
		{"<!DOCTYPE html><html><body>doc</body></html>", "doc"},
		{"spaced     \n\n   words", "spaced words"},
		{"<img src=x alt=hidden>", ""},
		{"<p>trailing tag never closed <b", "trailing tag never closed"},
	}
	for _, c := range cases {
		if got := HTMLToText(c.in); got != c.want {
			t.Errorf("HTMLToText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTruncatesOnRuneBoundary(t *testing.T) {
	body := strings.Repeat("é", 3000)
	raw := []byte("From: a@example.com\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + body)
	got := extract(t, raw, 2000)
	if n := utf8.RuneCountInString(got); n != 2000 {
		t.Fatalf("got %d runes, want 2000", n)
	}
}

// A declared multipart whose boundary never appears, a missing closing
// delimiter, and HTML declared as text: what a reader would see is kept.
func TestBrokenStructure(t *testing.T) {
	noBoundary := crlf("From: a@example.com\nContent-Type: multipart/mixed; boundary=\"nowhere\"\n\n<html><body>Hi <b>there</b></body></html>\n")
	if got := extract(t, noBoundary, 0); got != "Hi there" {
		t.Errorf("missing boundary: got %q", got)
	}
	unclosed := crlf("From: a@example.com\nContent-Type: multipart/mixed; boundary=q\n\n--q\nContent-Type: text/plain\n\nfirst\n--q\nContent-Type: text/plain\n\nsecond, never closed\n")
	if got := extract(t, unclosed, 0); got != "first\n\nsecond, never closed" {
		t.Errorf("unclosed: got %q", got)
	}
	badParams := crlf("From: a@example.com\nContent-Type: text/plain; charset=\"iso-8859-1\"; charset=\"utf-8\"\n\nr\xe9sum\xe9\n")
	if got := extract(t, badParams, 0); got != "résumé" {
		t.Errorf("duplicate params: got %q", got)
	}
}

// Hostile structure stays bounded: deep nesting and many parts.
func TestBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("From: a@example.com\r\n")
	for i := 0; i < 100; i++ {
		b.WriteString("Content-Type: multipart/mixed; boundary=b" + strings.Repeat("x", i) + "\r\n\r\n--b" + strings.Repeat("x", i) + "\r\n")
	}
	b.WriteString("Content-Type: text/plain\r\n\r\ndeep\r\n")
	if _, err := Extract([]byte(b.String()), 0); err != nil {
		t.Fatal(err)
	}
	var many strings.Builder
	many.WriteString("From: a@example.com\r\nContent-Type: multipart/mixed; boundary=z\r\n\r\n")
	for i := 0; i < 5000; i++ {
		many.WriteString("--z\r\nContent-Type: text/plain\r\n\r\np\r\n")
	}
	p, err := ParseMIME([]byte(many.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Parts) >= maxParts {
		t.Fatalf("%d parts kept, want fewer than %d", len(p.Parts), maxParts)
	}
}

func TestNotMail(t *testing.T) {
	for _, raw := range []string{"", "   \r\n", "just a line of text\nand another\n"} {
		if _, err := Extract([]byte(raw), 0); err == nil {
			t.Errorf("Extract(%q) succeeded", raw)
		}
		if _, err := Parse([]byte(raw), Options{}); err == nil {
			t.Errorf("Parse(%q) succeeded", raw)
		}
	}
}

func TestQuotedPrintableLenient(t *testing.T) {
	for in, want := range map[string]string{
		"caf=C3=A9":            "café",
		"soft=\r\nbreak":       "softbreak",
		"soft=  \nbreak":       "softbreak",
		"100%=ZZ sure = yes":   "100%=ZZ sure = yes",
		"lower =c3=a9":         "lower é",
		"trailing =":           "trailing ",
		"=3D=3d":               "==",
		"bad =4 then fine =41": "bad =4 then fine A",
	} {
		if got := string(decodeQP([]byte(in))); got != want {
			t.Errorf("decodeQP(%q) = %q, want %q", in, got, want)
		}
	}
}
