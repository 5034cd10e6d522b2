package gmailfake

import (
	"encoding/base64"
	"slices"
	"strings"
)

// sendMessage is messages.send with the message in the JSON body
// ({"raw": URL-safe base64 of an RFC 822 mail, "threadId": optional}):
// the mail lands in the mailbox as the person's sent mail, labelled SENT,
// as Gmail keeps it. It goes nowhere else: a test reads what was sent
// with Sent. Gmail answers with the new message's id, thread and labels.
func (s *Server) sendMessage(c *call) (any, error) {
	var req struct {
		Raw      string `json:"raw"`
		ThreadID string `json:"threadId"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	if req.Raw == "" {
		return nil, errInvalid("'raw' RFC822 payload message string or uploading message via /upload/* URL required")
	}
	// Google's clients send URL-safe base64, padded or not.
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(req.Raw, "="))
	if err != nil {
		return nil, errInvalid("Invalid value for ByteString: %v", err)
	}
	payload := parseEntity(raw, "")
	if strings.TrimSpace(payload.header("To")+payload.header("Cc")+payload.header("Bcc")) == "" {
		return nil, errInvalid("Recipient address required")
	}
	id := s.newID(c.now)
	thread := req.ThreadID
	if thread == "" {
		if thread = c.mb.threadFor(payload); thread == "" {
			thread = id
		}
	}
	if mid := strings.TrimSpace(payload.header("Message-ID")); mid != "" {
		c.mb.threadOf[mid] = thread
	}
	m := &message{id: id, threadID: thread, raw: slices.Clone(raw), labels: []string{"SENT"},
		internalDate: c.now.UnixMilli(), payload: payload, snippet: snippet(payload)}
	c.mb.msgs[id] = m
	c.mb.appendRecord(record{msgID: id, threadID: thread, labels: slices.Clone(m.labels), added: true}, c.now)
	return minimalRef(m), nil
}

// Sent returns the raw mails sent from the mailbox through the API
// (messages.send), oldest first.
func (s *Server) Sent(email string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	mb := s.mailbox(email)
	if mb == nil {
		return nil
	}
	var out [][]byte
	for _, m := range mb.sorted() {
		if m.has("SENT") {
			out = append(out, slices.Clone(m.raw))
		}
	}
	slices.Reverse(out)
	return out
}
