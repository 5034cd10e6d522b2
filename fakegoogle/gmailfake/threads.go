package gmailfake

import (
	"cmp"
	"slices"
	"strings"
)

// wireThread is users.threads.get's answer: the thread's messages oldest
// first, in the format asked for.
type wireThread struct {
	ID        string        `json:"id"`
	Snippet   string        `json:"snippet,omitempty"`
	HistoryID string        `json:"historyId,omitempty"`
	Messages  []wireMessage `json:"messages"`
}

// getThread serves users.threads.get. Gmail gives every message of the
// thread, the ones in Spam and Trash too, oldest first; a thread none of
// whose messages is left is 404, as a message id would be.
func (s *Server) getThread(c *call) (any, error) {
	id := c.r.PathValue("id")
	var msgs []*message
	for _, m := range c.mb.msgs {
		if m.threadID == id {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		return nil, errNotFound()
	}
	q := c.r.URL.Query()
	format := strings.ToLower(q.Get("format"))
	switch format {
	case "":
		format = "full"
	case "full", "metadata", "minimal":
	default:
		return nil, errInvalid("Invalid value at 'format' (type.googleapis.com/google.apps.gmail.v1.Format), %q", q.Get("format"))
	}
	slices.SortFunc(msgs, func(a, b *message) int {
		if c := cmp.Compare(a.internalDate, b.internalDate); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	t := wireThread{ID: id, Snippet: msgs[len(msgs)-1].snippet}
	var hid uint64
	for _, m := range msgs {
		t.Messages = append(t.Messages, m.wire(format, q["metadataHeaders"]))
		hid = max(hid, m.historyID)
	}
	t.HistoryID = idString(hid)
	return t, nil
}
