package gmailscout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"cloud.google.com/go/pubsub/v2"
)

// gmailNotification is what Gmail publishes. historyId is a JSON number in
// Gmail's messages but a string when re-published by some client
// libraries, so both are read.
type gmailNotification struct {
	EmailAddress string          `json:"emailAddress"`
	HistoryID    json.RawMessage `json:"historyId"`
}

// DecodeNotification reads Gmail's Pub/Sub message data.
func DecodeNotification(data []byte) (email string, historyID uint64, err error) {
	var n gmailNotification
	if err := json.Unmarshal(data, &n); err != nil {
		return "", 0, fmt.Errorf("notification: %w", err)
	}
	if !strings.Contains(n.EmailAddress, "@") {
		return "", 0, errors.New("notification has no emailAddress")
	}
	s := strings.Trim(strings.TrimSpace(string(n.HistoryID)), `"`)
	hid, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("notification historyId %q: %w", s, err)
	}
	return strings.ToLower(n.EmailAddress), hid, nil
}

// Pull receives Gmail's notifications from a Pub/Sub pull subscription
// ("projects/P/subscriptions/S"), for relays without a public URL. Each
// message is persisted as a hint before it is acknowledged, exactly as a
// push is before it is answered. The client honours PUBSUB_EMULATOR_HOST.
// Pull returns when ctx ends or the subscription fails.
func (s *Service) Pull(ctx context.Context, subscription string) error {
	project, _, ok := strings.Cut(strings.TrimPrefix(subscription, "projects/"), "/")
	if !ok || !strings.HasPrefix(subscription, "projects/") || !strings.Contains(subscription, "/subscriptions/") {
		return fmt.Errorf("gmail pull: subscription %q: want projects/PROJECT/subscriptions/NAME", subscription)
	}
	client, err := pubsub.NewClient(ctx, project)
	if err != nil {
		return fmt.Errorf("gmail pull: client: %w", err)
	}
	defer client.Close()
	sub := client.Subscriber(subscription)
	s.log.Info("gmail: pulling notifications", "subscription", subscription)
	err = sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		email, hid, err := DecodeNotification(m.Data)
		if err != nil {
			s.log.Warn("gmail pull: malformed notification acknowledged and dropped", "err", err)
			m.Ack()
			return
		}
		if err := s.db.AddPushHint(ctx, email, hid); err != nil {
			s.log.Error("gmail pull: notification not persisted; it will be redelivered", "err", err)
			m.Nack()
			return
		}
		m.Ack()
		s.Pushed()
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("gmail pull: %w", err)
	}
	return nil
}
