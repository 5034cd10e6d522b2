package core

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/scouts"
)

// Settings are the user's preferences for the desktop.
type Settings struct {
	// Notifications: desktop notifications for new suggestions (batched).
	Notifications bool `json:"notifications"`
	// QuietHours, when set, holds notifications between Start and End
	// (local "HH:MM"; Start after End spans midnight).
	QuietHours *QuietHours `json:"quiet_hours,omitempty"`
	// Autostart: start the agent at login.
	Autostart bool `json:"autostart"`
	// GmailMode is the mode of the Gmail scout "Connect Gmail…" adds
	// (local, relay-ping, relay-triage); empty: see
	// gmaildesk.Desk.DefaultMode.
	GmailMode string `json:"gmail_mode,omitempty"`
}

// QuietHours is a daily span without notifications.
type QuietHours struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

func (s Settings) validate() error {
	switch s.GmailMode {
	case "", gmaildesk.Local, gmaildesk.RelayPing, gmaildesk.RelayTriage:
	default:
		return scouts.Errorf(scouts.EInvalid, "gmail_mode %q: want local, relay-ping or relay-triage", s.GmailMode)
	}
	if q := s.QuietHours; q != nil {
		for _, v := range []string{q.Start, q.End} {
			if _, err := time.Parse("15:04", v); err != nil {
				return scouts.Errorf(scouts.EInvalid, "quiet hours: %q is not a time of day like 22:00", v)
			}
		}
	}
	return nil
}

var defaultSettings = Settings{Notifications: true}

const settingsKey = "settings"

// Settings returns the user's preferences.
func (c *Core) Settings(ctx context.Context) (Settings, error) {
	v, ok, err := c.DB.Setting(ctx, settingsKey)
	if err != nil || !ok {
		return defaultSettings, err
	}
	s := defaultSettings
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return defaultSettings, fmt.Errorf("core: stored settings are corrupt: %w", err)
	}
	return s, nil
}

// SetSettings stores the user's preferences.
func (c *Core) SetSettings(ctx context.Context, s Settings) (Settings, error) {
	if err := s.validate(); err != nil {
		return s, err
	}
	if c.cfg.Autostart != nil {
		if err := c.cfg.Autostart(s.Autostart); err != nil {
			// The autostart package's errors already say "autostart: …".
			return s, scouts.Errorf(scouts.EUnavailable, "%v", err)
		}
	}
	b, _ := json.Marshal(s)
	if err := c.DB.SetSetting(ctx, settingsKey, string(b)); err != nil {
		return s, err
	}
	c.Bus.Publish(scouts.Event{Type: EventSettingsUpdated, Data: s})
	return s, nil
}

// EventSettingsUpdated is published when the settings change.
const EventSettingsUpdated = "settings.updated"

// EventPaused is published when scouts are paused or resumed.
const EventPaused = "scouts.paused"

const pausedKey = "paused"

// SetPaused pauses or resumes every scout, and remembers it across
// restarts: a user who paused expects to find the scouts paused tomorrow.
func (c *Core) SetPaused(ctx context.Context, paused bool) error {
	v := "false"
	if paused {
		v = "true"
	}
	if err := c.DB.SetSetting(ctx, pausedKey, v); err != nil {
		return err
	}
	c.Engine.SetPaused(paused)
	c.Bus.Publish(scouts.Event{Type: EventPaused, Data: map[string]bool{"paused": paused}})
	return nil
}

// restorePaused applies the remembered pause state before scouts start.
func (c *Core) restorePaused(ctx context.Context) error {
	v, _, err := c.DB.Setting(ctx, pausedKey)
	if err != nil {
		return err
	}
	c.Engine.SetPaused(v == "true")
	return nil
}
