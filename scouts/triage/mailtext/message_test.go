package mailtext

import (
	"encoding/base64"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts/triage"
)

const sample = "From bounce@example.com  Thu Aug 22 13:17:22 2002\n" +
	"Return-Path: <bounce@example.com>\n" +
	"Delivered-To: zzzz@localhost.example.com\n" +
	"Received: from mail.example.com by relay.example.net with POP3 (fetchmail-5.9.0)\n" +
	"\tfor zzzz@localhost (single-drop)\n" +
	"Authentication-Results: mx.google.com;\n" +
	"       dkim=pass header.i=@example.com;\n" +
	"       spf=pass (google.com: domain of x@example.com designates 1.2.3.4 as permitted sender) smtp.mailfrom=x@example.com\n" +
	"Authentication-Results: forged.example; dmarc=pass\n" +
	"From: =?ISO-8859-1?Q?Andr=E9?= Dupont <Andre@Example.COM>\n" +
	"To: Team <team@example.org>, bob@example.net\n" +
	"To: second@example.org\n" +
	"Cc: undisclosed-recipients:;\n" +
	"Subject: =?koi8-r?B?8NLJ18XU?= and\n" +
	"  =?utf-8?q?caf=C3=A9?=\n" +
	"Date: Thu, 22 Aug 2002 13:17:22 +0100 (IST)\n" +
	"List-Id: Developers <DEV.lists.example.org>\n" +
	"List-Unsubscribe: <mailto:leave@lists.example.org>\n" +
	"Precedence: Bulk\n" +
	"Auto-Submitted: Auto-Replied; owner-email=\"x@example.com\"\n" +
	"X-Spam-Status: No, hits=-3.2\n" +
	"X-Keywords: \n" +
	"Status: RO\n" +
	"Content-Type: text/plain; charset=utf-8\n" +
	"\n" +
	"Body text.\n"

func TestParseKeepsOnlyProductFields(t *testing.T) {
	m, err := Parse([]byte(sample), Options{BodyRunes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	want := triage.Message{
		From:            triage.Address{Name: "André Dupont", Addr: "andre@example.com"},
		To:              []triage.Address{{Name: "Team", Addr: "team@example.org"}, {Addr: "bob@example.net"}, {Addr: "second@example.org"}},
		Cc:              []triage.Address{},
		Subject:         "Привет and café",
		Date:            time.Date(2002, 8, 22, 12, 17, 22, 0, time.UTC),
		ListID:          "dev.lists.example.org",
		ListUnsubscribe: "<mailto:leave@lists.example.org>",
		Precedence:      "bulk",
		AutoSubmitted:   "auto-replied",
		AuthResults: []string{
			"mx.google.com; dkim=pass header.i=@example.com; spf=pass (google.com: domain of x@example.com designates 1.2.3.4 as permitted sender) smtp.mailfrom=x@example.com",
			"forged.example; dmarc=pass",
		},
		Body:          "Body text.",
		HasAttachment: new(bool),
	}
	if !m.Date.Equal(want.Date) {
		t.Errorf("Date = %v, want %v", m.Date, want.Date)
	}
	m.Date = want.Date
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got  %#v\nwant %#v", fields(m), fields(want))
	}
	// Headers only, unless the body is asked for.
	h, err := Parse([]byte(sample), Options{})
	if err != nil || h.Body != "" || h.Subject != want.Subject {
		t.Errorf("headers-only Parse: body %q subject %q err %v", h.Body, h.Subject, err)
	}
}

// fields prints a Message fully (its own String hides the body on purpose).
func fields(m triage.Message) map[string]any {
	v := reflect.ValueOf(m)
	out := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		out[v.Type().Field(i).Name] = v.Field(i).Interface()
	}
	return out
}

// triage.Message has exactly the fields the product reads: no generic
// header map through which a collector's header could slip in.
func TestMessageHasNoOtherFields(t *testing.T) {
	allowed := []string{"ID", "From", "To", "Cc", "Subject", "Date", "DateInvalid", "ListID", "ListUnsubscribe", "ListUnsubscribePost",
		"Precedence", "AutoSubmitted", "AuthResults", "Labels", "HasAttachment", "Body"}
	typ := reflect.TypeFor[triage.Message]()
	for i := 0; i < typ.NumField(); i++ {
		if !slices.Contains(allowed, typ.Field(i).Name) {
			t.Errorf("triage.Message has a field %s the product does not read; update CORPUS.md rules and this list deliberately", typ.Field(i).Name)
		}
	}
}

func TestAddresses(t *testing.T) {
	dec := wordDecoder()
	cases := []struct {
		in   string
		want []triage.Address
	}{
		{"undisclosed-recipients:;", []triage.Address{}},
		{`"Doe, John" <John@X.org>`, []triage.Address{{Name: "Doe, John", Addr: "john@x.org"}}},
		{"friend@", []triage.Address{{Name: "friend@"}}},
		{"Bad <<x@y.com>>, ok@z.com", []triage.Address{{Name: "Bad", Addr: "x@y.com"}, {Addr: "ok@z.com"}}},
		{"Undisclosed Recipients", []triage.Address{{Name: "Undisclosed Recipients"}}},
		{"someone at example dot com x@example.com", []triage.Address{{Addr: "x@example.com"}}},
	}
	for _, c := range cases {
		if got := parseAddresses(dec, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseAddresses(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestDates(t *testing.T) {
	for v, wantInvalid := range map[string]bool{
		"Thu, 22 Aug 2002 13:17:22 +0100":       false,
		"Thu, 22 Aug 2002 13:17:22 +0100 (IST)": false,
		"22 Aug 2002 13:17:22 GMT":              false,
		"Wed, 21 Aug 2002 20:31:57 -1600":       true, // no such zone
		"Fri, 23 Aug 2002 19:27:52":             true, // no zone at all
		"yesterday":                             true,
	} {
		_, invalid := parseDate(v)
		if invalid != wantInvalid {
			t.Errorf("parseDate(%q) invalid = %v, want %v", v, invalid, wantInvalid)
		}
	}
}

func TestRaw8BitHeader(t *testing.T) {
	m, err := Parse([]byte("From: Jos\xe9 <jose@example.com>\r\nSubject: Ni\xf1o\r\n\r\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Niño" || m.From.Addr != "jose@example.com" {
		t.Fatalf("got subject %q from %+v", m.Subject, m.From)
	}
}

func TestGmailPayload(t *testing.T) {
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	var p GmailPart
	p.MimeType = "multipart/alternative"
	p.Headers = []GmailHeader{{"From", "Shop <no-reply@shop.example>"}, {"Subject", "Your order"}, {"X-Spam-Status", "No"}}
	var plain, html GmailPart
	plain.MimeType = "text/plain"
	plain.Headers = []GmailHeader{{"Content-Type", "text/plain; charset=UTF-8"}}
	plain.Body.Data = b64("Order #12 shipped ✓")
	html.MimeType = "text/html"
	html.Body.Data = b64("<p>Order #12 shipped</p>")
	p.Parts = []GmailPart{html, plain}
	m := GmailMessage("18c0ffee", []string{"INBOX", "CATEGORY_UPDATES"}, p, 2000)
	if m.ID != "18c0ffee" || m.From.Addr != "no-reply@shop.example" || m.Subject != "Your order" ||
		m.Body != "Order #12 shipped ✓" || !m.HasLabel("CATEGORY_UPDATES") {
		t.Fatalf("got %#v", fields(m))
	}
}

// TestHasAttachment: rules' has_attachment, from the MIME structure when
// it was read, unknown (nil) from headers alone.
func TestHasAttachment(t *testing.T) {
	mixed := "From: a@example.com\nSubject: s\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n" +
		"--b\nContent-Type: application/pdf\nContent-Disposition: attachment; filename=x.pdf\n\nJVBERi0=\n--b--\n"
	for _, c := range []struct {
		raw   string
		runes int
		want  string
	}{
		{mixed, 100, "true"}, {mixed, 0, "unknown"}, {sample, 100, "false"},
	} {
		m, err := Parse([]byte(c.raw), Options{BodyRunes: c.runes})
		if err != nil {
			t.Fatal(err)
		}
		if got := attachmentString(m.HasAttachment); got != c.want {
			t.Errorf("Parse with %d runes: %s, want %s", c.runes, got, c.want)
		}
	}
	part := GmailPart{MimeType: "multipart/mixed", Parts: []GmailPart{{MimeType: "text/plain"}, {MimeType: "image/png", Filename: "a.png"}}}
	if got := attachmentString(GmailMessage("1", nil, part, 100).HasAttachment); got != "true" {
		t.Errorf("gmail payload with a file: %s", got)
	}
	if got := attachmentString(GmailMessage("1", nil, part, 0).HasAttachment); got != "unknown" {
		t.Errorf("gmail metadata only: %s", got)
	}
}

func attachmentString(b *bool) string {
	if b == nil {
		return "unknown"
	}
	if *b {
		return "true"
	}
	return "false"
}
