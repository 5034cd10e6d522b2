package service

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/scouts-hq/scouts/relay/gmailscout"
)

// pushEnvelope is Pub/Sub's push request body.
type pushEnvelope struct {
	Message struct {
		Data      string `json:"data"`
		MessageID string `json:"messageId"`
	} `json:"message"`
	Subscription string `json:"subscription"`
}

// Push takes a Gmail notification that Pub/Sub pushed (the transport has
// checked who sent it): the hint is persisted, then the scouts of its
// mailbox are woken; the work happens after the answer. Only a failure to
// persist (the hint would be lost) is Unavailable, for Pub/Sub to
// redeliver it; a notification that cannot be read is Malformed, and
// redelivering it cannot fix it.
func (s *Service) Push(ctx context.Context, body []byte) error {
	if s.cfg.Gmail == nil {
		return refuse(NotFound, "this relay does not run Gmail scouts")
	}
	email, hid, err := decodePush(body)
	if err != nil {
		s.log.Warn("gmail push ignored: malformed", "err", err)
		return &Error{Code: Malformed, Message: "malformed notification", Err: err}
	}
	if err := s.db.AddPushHint(ctx, email, hid); err != nil {
		s.log.Error("gmail push not persisted; Pub/Sub will redeliver", "err", err)
		return &Error{Code: Unavailable, Message: "could not persist the notification", Err: err}
	}
	s.cfg.Gmail.Pushed()
	return nil
}

func decodePush(body []byte) (email string, historyID uint64, err error) {
	var env pushEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return "", 0, fmt.Errorf("envelope: %w", err)
	}
	data, err := base64.StdEncoding.DecodeString(env.Message.Data)
	if err != nil {
		return "", 0, fmt.Errorf("message data: %w", err)
	}
	return gmailscout.DecodeNotification(data)
}
