package core

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// What the webhook kind of scout does on the desktop (kinds.go): the relay
// receives its items at an address guarded by a token made here.

// webhookConfig is a webhook scout's configuration on the desktop.
type webhookConfig struct {
	HookURL string `json:"hook_url"`
}

// newHookToken returns a webhook token and its hash (what the relay keeps).
func newHookToken() (token, hash string) {
	b := make([]byte, 32)
	rand.Read(b)
	token = "whk_" + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))
	return token, hex.EncodeToString(sum[:])
}

// webhookAddress records where the relay said a webhook scout receives
// items: the relay knows its public address better than the desktop.
func (c *Core) webhookAddress(ctx context.Context, s scouts.Scout, res protocol.ConfigResult) {
	if res.HookURL == "" {
		return
	}
	var cfg webhookConfig
	json.Unmarshal(s.Config, &cfg)
	if cfg.HookURL != res.HookURL {
		cfg.HookURL = res.HookURL
		s.Config, _ = json.Marshal(cfg)
		s.UpdatedAt = c.now()
		if err := c.DB.UpdateScout(ctx, s); err == nil {
			c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
		}
	}
}

// webhookItem is a webhook proposal's item: the content sealed for this
// device, opened.
func webhookItem(it client.Item, ref *scouts.ItemRef) {
	meta := ref.Meta
	switch {
	case it.Payload != nil:
		meta.Title, meta.URL, meta.Body = it.Payload.Title, it.Payload.URL, it.Payload.Body
		meta.Facts = &scouts.ItemFacts{ContentRead: true}
		meta.Excerpt = excerpt(it.Payload.Body, 280)
	case it.OpenError != nil:
		meta.Title = "Webhook item (its content could not be opened on this device)"
		ref.Notes = append(ref.Notes, "The sealed content could not be opened: "+it.OpenError.Error())
	default:
		meta.Title = "Webhook item (no content was sealed for this device)"
		ref.Notes = append(ref.Notes, "The relay held no content for this device: it was registered after the item arrived")
	}
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
