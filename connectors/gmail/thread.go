package gmail

import (
	"context"
	"net/http"
	"slices"
	"time"

	gmailapi "google.golang.org/api/gmail/v1"
)

// ThreadMessage is one message of a thread as awaiting reply reads it:
// who wrote it and when, from its headers alone.
type ThreadMessage struct {
	ID       string
	From     string // the sender's address, lower-cased
	Sent     bool   // the person sent it (label SENT)
	Received time.Time
}

// unitsThreadGet is threads.get's quota cost.
const unitsThreadGet = 10

// Thread reads a thread's messages oldest first (threads.get, metadata
// format with the From header only). A thread Gmail no longer has is a
// *NotFoundError naming it.
func (c *Client) Thread(ctx context.Context, id string) ([]ThreadMessage, error) {
	var t *gmailapi.Thread
	err := c.call(ctx, "threads.get", unitsThreadGet, func() (err error) {
		t, err = c.svc.Users.Threads.Get("me", id).Format("metadata").MetadataHeaders("From").Context(ctx).Do()
		return err
	})
	if isStatus(err, http.StatusNotFound) {
		return nil, &NotFoundError{ID: id}
	}
	if err != nil {
		return nil, err
	}
	out := make([]ThreadMessage, 0, len(t.Messages))
	for _, m := range t.Messages {
		msg, err := convert(m, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, ThreadMessage{ID: m.Id, From: msg.Triage.From.Addr, Received: msg.Received,
			Sent: slices.Contains(m.LabelIds, "SENT") && !slices.Contains(m.LabelIds, "DRAFT")})
	}
	return out, nil
}
