package gmail

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	gmailapi "google.golang.org/api/gmail/v1"
)

// unitsSend is messages.send's quota cost.
const unitsSend = 100

// Send sends a raw RFC 822 mail from the account (messages.send) and
// returns the sent message's id. Gmail has no idempotency key for a send:
// a caller that must send once looks first for the mail's Message-ID
// (SentMessageID).
func (c *Client) Send(ctx context.Context, raw []byte) (string, error) {
	var m *gmailapi.Message
	err := c.call(ctx, "messages.send", unitsSend, func() (err error) {
		m, err = c.svc.Users.Messages.Send("me", &gmailapi.Message{Raw: base64.URLEncoding.EncodeToString(raw)}).Context(ctx).Do()
		return err
	})
	if err != nil {
		return "", err
	}
	return m.Id, nil
}

// SentMessageID returns the id of a mail of the account whose Message-ID
// header is msgID (rfc822msgid:, in any folder), "" when there is none.
func (c *Client) SentMessageID(ctx context.Context, msgID string) (string, error) {
	var list *gmailapi.ListMessagesResponse
	q := "rfc822msgid:" + strings.Trim(msgID, "<>")
	err := c.call(ctx, "messages.list", unitsMessageList, func() (err error) {
		list, err = c.svc.Users.Messages.List("me").Q(q).IncludeSpamTrash(true).MaxResults(1).Context(ctx).Do()
		return err
	})
	if err != nil {
		return "", fmt.Errorf("gmail: look for a sent mail: %w", err)
	}
	if len(list.Messages) == 0 {
		return "", nil
	}
	return list.Messages[0].Id, nil
}
