package gmailfake

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"google.golang.org/api/gmail/v1"
)

// A French newsletter: alternative text and HTML, quoted-printable Latin-1,
// an encoded-word subject, a folded header.
const altMail = "Return-Path: <news@example.fr>\r\n" +
	"From: =?ISO-8859-1?Q?Caf=E9_du_Coin?= <news@example.fr>\r\n" +
	"To: ann@example.com\r\n" +
	"Subject: =?ISO-8859-1?Q?Le_caf=E9_cr=E8me?=\r\n" +
	"Message-ID: <alt-1@example.fr>\r\n" +
	"X-Folded: first part\r\n\tsecond part\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/alternative; boundary=\"ALT\"\r\n" +
	"\r\n" +
	"This is a multi-part message in MIME format.\r\n" +
	"--ALT\r\n" +
	"Content-Type: text/plain; charset=ISO-8859-1\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Bonjour Ann, le caf=E9 cr=E8me est pr=EAt.\r\n" +
	"It's   <ready>   & hot=\r\n" +
	" today.\r\n" +
	"--ALT\r\n" +
	"Content-Type: text/html; charset=ISO-8859-1\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"<html><body><p>Bonjour Ann, le caf=E9 cr=E8me est pr=EAt.</p></body></html>\r\n" +
	"--ALT--\r\n"

// A report with a base64 PDF attachment.
const attMail = "From: Carol <carol@example.net>\r\n" +
	"To: ann@example.com\r\n" +
	"Subject: The report\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=\"MIX\"\r\n" +
	"\r\n" +
	"--MIX\r\n" +
	"Content-Type: text/plain; charset=us-ascii\r\n" +
	"\r\n" +
	"See attached.\r\n" +
	"--MIX\r\n" +
	"Content-Type: application/pdf; name=\"report.pdf\"\r\n" +
	"Content-Disposition: attachment; filename=\"report.pdf\"\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"JVBERi0xLjQKJcfs\r\nj6IKMSAwIG9iago=\r\n" +
	"--MIX--\r\n"

// A reply to the newsletter, in its thread.
const replyMail = "From: Ann <ann@example.com>\r\n" +
	"To: news@example.fr\r\n" +
	"Subject: Re: Le cafe creme\r\n" +
	"In-Reply-To: <alt-1@example.fr>\r\n" +
	"References: <alt-1@example.fr>\r\n" +
	"\r\n" +
	"Merci!\r\n"

func header(hs []*gmail.MessagePartHeader, name string) string {
	for _, h := range hs {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

func decodeData(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("body data %q is not unpadded URL-safe base64: %v", s, err)
	}
	return b
}

func TestProfile(t *testing.T) {
	e := newEnv(t)
	e.deliver(t, altMail)
	e.deliver(t, replyMail)
	e.deliver(t, attMail)
	p, err := e.svc.Users.GetProfile("me").Do()
	if err != nil {
		t.Fatal(err)
	}
	if p.EmailAddress != ann || p.MessagesTotal != 3 || p.ThreadsTotal != 2 || p.HistoryId != e.srv.HistoryID(ann) {
		t.Fatalf("profile %+v, history id %d", p, e.srv.HistoryID(ann))
	}
	// The address itself works as user id as well as "me".
	if _, err := e.svc.Users.GetProfile(ann).Do(); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Users.GetProfile("bob@example.org").Do()
	apiErr(t, err, 403, "forbidden")
}

func TestMessageFormats(t *testing.T) {
	e := newEnv(t)
	altID := e.deliver(t, altMail)
	replyID := e.deliver(t, replyMail)
	attID := e.deliver(t, attMail)

	m, err := e.svc.Users.Messages.Get("me", altID).Format("full").Do()
	if err != nil {
		t.Fatal(err)
	}
	if m.ThreadId != altID || m.Raw != "" || m.InternalDate != e.clock.Now().UnixMilli() || m.HistoryId == 0 {
		t.Errorf("message fields: %+v", m)
	}
	if strings.Join(m.LabelIds, ",") != "INBOX,UNREAD" {
		t.Errorf("labels %v", m.LabelIds)
	}
	p := m.Payload
	if p.MimeType != "multipart/alternative" || p.PartId != "" || len(p.Parts) != 2 {
		t.Fatalf("payload %+v", p)
	}
	if p.Headers[0].Name != "Return-Path" || header(p.Headers, "Subject") != "Le café crème" ||
		header(p.Headers, "From") != "Café du Coin <news@example.fr>" || header(p.Headers, "X-Folded") != "first part\tsecond part" {
		t.Errorf("headers %+v", p.Headers)
	}
	plain, html := p.Parts[0], p.Parts[1]
	if plain.PartId != "0" || plain.MimeType != "text/plain" || html.PartId != "1" || html.MimeType != "text/html" {
		t.Fatalf("parts %+v %+v", plain, html)
	}
	latin1 := decodeData(t, plain.Body.Data)
	if int64(len(latin1)) != plain.Body.Size || !bytes.Contains(latin1, []byte{'c', 'a', 'f', 0xE9}) {
		t.Errorf("plain part is not the decoded Latin-1 bytes: %q", latin1)
	}
	text, _ := charmap.ISO8859_1.NewDecoder().Bytes(latin1)
	if want := "Bonjour Ann, le café crème est prêt.\r\nIt's   <ready>   & hot today."; string(text) != want {
		t.Errorf("plain text %q, want %q", text, want)
	}
	if want := "Bonjour Ann, le café crème est prêt. It&#39;s &lt;ready&gt; &amp; hot today."; m.Snippet != want {
		t.Errorf("snippet %q, want %q", m.Snippet, want)
	}

	reply, err := e.svc.Users.Messages.Get("me", replyID).Format("minimal").Do()
	if err != nil {
		t.Fatal(err)
	}
	if reply.ThreadId != altID || reply.Payload != nil || reply.Snippet != "Merci!" || len(reply.LabelIds) != 2 {
		t.Errorf("reply %+v", reply)
	}

	att, err := e.svc.Users.Messages.Get("me", attID).Do()
	if err != nil {
		t.Fatal(err)
	}
	pdf := att.Payload.Parts[1]
	if pdf.Filename != "report.pdf" || pdf.MimeType != "application/pdf" || pdf.Body.Data != "" || pdf.Body.AttachmentId == "" || pdf.Body.Size != 23 {
		t.Fatalf("attachment part %+v body %+v", pdf, pdf.Body)
	}
	body, err := e.svc.Users.Messages.Attachments.Get("me", attID, pdf.Body.AttachmentId).Do()
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeData(t, body.Data); string(got) != "%PDF-1.4\n%\xc7\xec\x8f\xa2\n1 0 obj\n" {
		t.Errorf("attachment bytes %q", got)
	}

	meta, err := e.svc.Users.Messages.Get("me", altID).Format("metadata").MetadataHeaders("subject", "From").Do()
	if err != nil {
		t.Fatal(err)
	}
	if meta.Payload == nil || len(meta.Payload.Headers) != 2 || meta.Payload.Body != nil || meta.Payload.Parts != nil {
		t.Fatalf("metadata payload %+v", meta.Payload)
	}
	if meta.Payload.Headers[0].Name != "From" || meta.Payload.Headers[1].Value != "Le café crème" {
		t.Errorf("metadata headers %+v %+v", meta.Payload.Headers[0], meta.Payload.Headers[1])
	}

	raw, err := e.svc.Users.Messages.Get("me", attID).Format("raw").Do()
	if err != nil {
		t.Fatal(err)
	}
	if raw.Payload != nil || string(decodeData(t, raw.Raw)) != attMail || raw.SizeEstimate != int64(len(attMail)) {
		t.Errorf("raw format: payload %v, %d bytes", raw.Payload, raw.SizeEstimate)
	}

	_, err = e.svc.Users.Messages.Get("me", "0123456789abcdef").Do()
	ge := apiErr(t, err, 404, "notFound")
	if ge.Message != "Requested entity was not found." || !strings.Contains(ge.Body, `"status":"NOT_FOUND"`) {
		t.Errorf("404 body %s", ge.Body)
	}
	_, err = e.svc.Users.Messages.Get("me", altID).Format("bogus").Do()
	apiErr(t, err, 400, "invalidArgument")
}

// HTML-only mail (most spam) gets its snippet from the rendered HTML.
func TestSnippetFromHTML(t *testing.T) {
	root := parseEntity([]byte("Content-Type: text/html\r\n\r\n<html><head><title>T</title><style>p{}</style></head>"+
		"<body><p>Win&nbsp;a <b>prize</b>!</p><p>Now &amp; "+strings.Repeat("more ", 60)+"</p></body></html>"), "")
	s := snippet(root)
	if !strings.HasPrefix(s, "Win a prize! Now &amp; more more") || len([]rune(s)) > 210 {
		t.Errorf("snippet %q", s)
	}
}

// Malformed mail is served anyway: no closing boundary, broken base64.
func TestMalformedMail(t *testing.T) {
	root := parseEntity([]byte("From spammer  Thu Aug 22 2002\nContent-Type: multipart/mixed; boundary=B\n\n--B\n"+
		"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVsbG8gd29ybGQ*!\n"), "")
	if len(root.parts) != 1 || string(root.parts[0].body) != "hello world" {
		t.Fatalf("parts %+v", root.parts)
	}
	if len(root.headers) != 1 {
		t.Errorf("the mbox line should be skipped: %+v", root.headers)
	}
}
