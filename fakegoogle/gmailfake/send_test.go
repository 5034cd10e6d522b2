package gmailfake

import (
	"encoding/base64"
	"strings"
	"testing"

	"google.golang.org/api/gmail/v1"
)

// messages.send through the real client: the mail is kept as sent mail
// (SENT only, never in the inbox), found again by its Message-ID, read
// back by Sent, and charged 100 units; a mail with no recipient is
// refused as Gmail refuses it.
func TestSendKeepsTheMailAsSent(t *testing.T) {
	e := newEnv(t)
	raw := "From: ann@example.com\r\nTo: leave@lists.example\r\nSubject: unsubscribe\r\nMessage-ID: <u.1@scouts.invalid>\r\n\r\nunsubscribe\r\n"
	before := e.srv.Quota(ann)
	m, err := e.svc.Users.Messages.Send("me", &gmail.Message{Raw: base64.URLEncoding.EncodeToString([]byte(raw))}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.LabelIds, ",") != "SENT" || m.Id == "" {
		t.Fatalf("sent message: id %q labels %v, want an id and SENT alone", m.Id, m.LabelIds)
	}
	if got := e.srv.Quota(ann) - before; got != 100 {
		t.Errorf("messages.send cost %d units, want 100", got)
	}
	if sent := e.srv.Sent(ann); len(sent) != 1 || string(sent[0]) != raw {
		t.Errorf("Sent = %q, want the one raw mail", sent)
	}
	list, err := e.svc.Users.Messages.List("me").Q("rfc822msgid:u.1@scouts.invalid").Do()
	if err != nil || len(list.Messages) != 1 || list.Messages[0].Id != m.Id {
		t.Errorf("rfc822msgid: found %v (err %v), want the sent mail", list, err)
	}
	if list, _ := e.svc.Users.Messages.List("me").Q("rfc822msgid:other@scouts.invalid").Do(); len(list.Messages) != 0 {
		t.Errorf("rfc822msgid: another id found %d mails", len(list.Messages))
	}
	if inbox, _ := e.svc.Users.Messages.List("me").LabelIds("INBOX").Do(); len(inbox.Messages) != 0 {
		t.Errorf("the sent mail is in the inbox")
	}
	noRcpt := "From: ann@example.com\r\nSubject: x\r\n\r\nx\r\n"
	_, err = e.svc.Users.Messages.Send("me", &gmail.Message{Raw: base64.URLEncoding.EncodeToString([]byte(noRcpt))}).Do()
	apiErr(t, err, 400, "invalidArgument")
}
