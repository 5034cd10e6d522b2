package gmailfake

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// publishTimeout bounds one publish; Gmail's own publishing never holds a
// client's request for long.
const publishTimeout = 30 * time.Second

// flush publishes the mailbox's queued notifications from the calling
// goroutine, outside Server.mu. pubMu keeps them in history order when
// several goroutines change the same mailbox: whoever holds it drains the
// queue, including what others queued meanwhile.
func (s *Server) flush(ctx context.Context, mb *mailbox) {
	mb.pubMu.Lock()
	defer mb.pubMu.Unlock()
	for {
		s.mu.Lock()
		batch := mb.pending
		mb.pending = nil
		s.mu.Unlock()
		if len(batch) == 0 {
			return
		}
		if s.o.Publish == nil {
			continue
		}
		for _, n := range batch {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
			err := s.o.Publish(pctx, n.topic, n.data)
			cancel()
			if err != nil {
				// Gmail's notifications are best effort too: a lost one is
				// something clients must survive, not an API error.
				s.logf("gmailfake: publishing %s to %s: %v", n.data, n.topic, err)
			}
		}
	}
}

// EmulatorPublisher returns an Options.Publish that publishes through the
// Pub/Sub emulator's REST API at host (as in PUBSUB_EMULATOR_HOST). The
// topic must exist, as it must for real Gmail. A nil client is
// http.DefaultClient.
func EmulatorPublisher(host string, client *http.Client) func(ctx context.Context, topic string, data []byte) error {
	if client == nil {
		client = http.DefaultClient
	}
	base := host
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	base = strings.TrimSuffix(base, "/")
	return func(ctx context.Context, topic string, data []byte) error {
		body, err := json.Marshal(map[string]any{"messages": []map[string]string{{"data": base64.StdEncoding.EncodeToString(data)}}})
		if err != nil {
			return fmt.Errorf("encoding publish request: %w", err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/"+topic+":publish", bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("publish to %s: %w", topic, err)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("publish to %s: %w", topic, err)
		}
		defer res.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
		if res.StatusCode/100 != 2 {
			return fmt.Errorf("publish to %s: emulator answered %s: %s", topic, res.Status, bytes.TrimSpace(msg))
		}
		return nil
	}
}
