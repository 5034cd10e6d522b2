package core

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// NewScout describes a scout to create.
type NewScout struct {
	Kind    scouts.Kind
	Name    string
	Review  bool
	Enabled bool
	Config  json.RawMessage
	// Schedule and Budget are the scout's run settings (zero: defaults).
	Schedule scouts.Schedule
	Budget   scouts.Budget
	// WriteScope is where its actions may write (zero: the default).
	WriteScope scouts.WriteScope
	// Force creates a folder scout over a tree larger than
	// Config.FolderMaxFiles.
	Force bool
	// ID is the id to give the scout (an imported definition's); empty:
	// a new one.
	ID string
}

// Created is a new scout with the secret shown once: a webhook scout's
// token, which exists nowhere else afterwards (the relay keeps its hash).
type Created struct {
	Scout     scouts.Scout
	HookToken string
	// Warnings are what the user should know about the new scout (a very
	// large folder), shown with the answer.
	Warnings []string
}

// CreateScout validates and stores a new scout and starts it, recording
// its first version.
func (c *Core) CreateScout(ctx context.Context, in NewScout) (Created, error) {
	s, out, hookHash, err := c.newScout(ctx, in)
	if err != nil {
		return out, err
	}
	err = c.defs.Change(ctx, defsync.Edit{ScoutID: s.ID, Note: "created"}, func(*defsync.Tx) error {
		return c.storeScout(ctx, s, hookHash)
	})
	if err != nil {
		return out, err
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
	out.Scout = s
	return out, nil
}

// newScout is the scout in describes, checked: what is stored, what the
// answer says (a webhook's token, warnings) and the token's hash for the
// relay.
func (c *Core) newScout(ctx context.Context, in NewScout) (s scouts.Scout, out Created, hookHash string, err error) {
	now := c.now()
	s = scouts.Scout{
		ID: in.ID, Kind: in.Kind, Name: strings.TrimSpace(in.Name),
		Enabled: in.Enabled, Review: in.Review, Config: in.Config, CreatedAt: now, UpdatedAt: now,
		Schedule: in.Schedule, Budget: in.Budget, WriteScope: in.WriteScope,
	}
	if s.ID == "" {
		s.ID = scouts.NewID("sc")
	} else if _, err := c.DB.GetScout(ctx, s.ID); err == nil {
		return s, out, "", scouts.Errorf(scouts.EConflict, "a scout with id %s exists", s.ID)
	}
	k := c.kinds[s.Kind]
	if k.HookToken {
		relayURL := c.relay.URL()
		if relayURL == "" {
			return s, out, "", scouts.Errorf(scouts.EInvalid, "webhook scouts are received by a relay: log in to one first (scouts relay login URL TOKEN, or Settings → Relay)")
		}
		out.HookToken, hookHash = newHookToken()
		s.Config, _ = json.Marshal(webhookConfig{HookURL: strings.TrimSuffix(relayURL, "/") + "/api/v1/hooks/" + s.ID})
	}
	if err := c.checkScout(ctx, &s); err != nil {
		return s, out, "", err
	}
	if k.admit != nil {
		w, err := k.admit(ctx, s, in.Force)
		if err != nil {
			return s, out, "", err
		}
		out.Warnings = w
	}
	return s, out, hookHash, nil
}

// storeScout stores a new scout and starts it, under a change of the
// definitions, whose version is recorded before the runner starts (the
// restart waits for the change), so that its first run records the
// version it runs.
func (c *Core) storeScout(ctx context.Context, s scouts.Scout, hookHash string) error {
	if err := c.DB.CreateScout(ctx, s); err != nil {
		return err
	}
	// The runner starts before the relay hears of the scout: the relay's
	// answer may update the scout (a relay-ping topic) and restart it, and
	// must not be overtaken by this start with the older configuration.
	c.defs.Restart(s)
	// Registered through the outbox: it reaches the relay when it can,
	// exactly once, even if the desktop is offline now.
	return c.queueScoutOp(ctx, protocol.TypeScoutRegister, s, hookHash)
}

// checkScout validates s and normalises its configuration, filling a
// default name.
func (c *Core) checkScout(ctx context.Context, s *scouts.Scout) error {
	if check := c.kinds[s.Kind].check; check != nil {
		if err := check(ctx, s); err != nil {
			return err
		}
	}
	if err := s.Validate(); err != nil {
		return err
	}
	if err := s.WriteScope.Validate(); err != nil {
		return err
	}
	if err := c.checkRunSettings(s); err != nil {
		return err
	}
	return c.checkLoops(ctx, *s)
}

// ScoutPatch changes a scout; nil fields are unchanged.
type ScoutPatch struct {
	Name    *string
	Enabled *bool
	Review  *bool
	// Config, when set, replaces the kind-specific configuration.
	Config json.RawMessage
	// Include and Exclude, when set, replace the folder scout's globs.
	Include *[]string
	Exclude *[]string
	// RotateHookToken gives a webhook scout a new token (returned once);
	// the old one stops working when the relay applies the change.
	RotateHookToken bool
	// Schedule and Budget, when set, replace the scout's run settings.
	Schedule *scouts.Schedule
	Budget   *scouts.Budget
	// WriteScope, when set, replaces where its actions may write.
	WriteScope *scouts.WriteScope
	// WriteFile edits a scout that a definitions file manages by writing
	// the file too; without it such an edit is refused.
	WriteFile bool
}

// UpdateScout applies p to a scout and restarts it with the new settings,
// recording the new version.
func (c *Core) UpdateScout(ctx context.Context, id string, p ScoutPatch) (Created, error) {
	var out Created
	err := c.defs.Change(ctx, defsync.Edit{ScoutID: id, WriteFile: p.WriteFile}, func(*defsync.Tx) error {
		var err error
		out.Scout, out.HookToken, err = c.updateScout(ctx, id, p)
		return err
	})
	if err != nil {
		return out, err
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: out.Scout})
	return out, nil
}

// updateScout applies p to a scout under a change of the definitions and
// restarts it (once the change is done: its new version first, see
// storeScout); it returns the scout and a rotated webhook token.
func (c *Core) updateScout(ctx context.Context, id string, p ScoutPatch) (s scouts.Scout, hookToken string, err error) {
	s, err = c.DB.GetScout(ctx, id)
	if err != nil {
		return s, "", err
	}
	k := c.kinds[s.Kind]
	if p.RotateHookToken && !k.HookToken {
		return s, "", scouts.Errorf(scouts.EInvalid, "only webhook scouts have a token to rotate")
	}
	if k.HookToken && len(p.Config) > 0 {
		return s, "", scouts.Errorf(scouts.EInvalid, "a webhook scout's configuration is managed by the relay")
	}
	if p.Name != nil {
		s.Name = strings.TrimSpace(*p.Name)
		if s.Name == "" {
			return s, "", scouts.Errorf(scouts.EInvalid, "scout name cannot be empty")
		}
	}
	if p.Enabled != nil {
		s.Enabled = *p.Enabled
	}
	if p.Review != nil {
		s.Review = *p.Review
	}
	if len(p.Config) > 0 {
		s.Config = p.Config
	}
	if p.Schedule != nil {
		s.Schedule = *p.Schedule
	}
	if p.Budget != nil {
		s.Budget = *p.Budget
	}
	if p.WriteScope != nil {
		s.WriteScope = *p.WriteScope
	}
	if p.Include != nil || p.Exclude != nil {
		if s.Kind != scouts.KindFolder {
			return s, "", scouts.Errorf(scouts.EInvalid, "only folder scouts have include and exclude globs")
		}
		var m map[string]any
		if err := json.Unmarshal(s.Config, &m); err != nil {
			return s, "", scouts.Errorf(scouts.EInvalid, "scout config is not a JSON object: %v", err)
		}
		if p.Include != nil {
			m["include"] = *p.Include
		}
		if p.Exclude != nil {
			m["exclude"] = *p.Exclude
		}
		s.Config, _ = json.Marshal(m)
	}
	s.UpdatedAt = c.now()
	if err := c.checkScout(ctx, &s); err != nil {
		return s, "", err
	}
	if err := c.DB.UpdateScout(ctx, s); err != nil {
		return s, "", err
	}
	c.defs.Restart(s) // before the relay's answer can restart it (see storeScout)
	var hookHash string
	if p.RotateHookToken {
		hookToken, hookHash = newHookToken()
	}
	return s, hookToken, c.queueScoutOp(ctx, protocol.TypeScoutUpdate, s, hookHash)
}

// DeleteScout stops and deletes a scout. What it produced and the user
// decided stays.
func (c *Core) DeleteScout(ctx context.Context, id string) error {
	s, err := c.DB.GetScout(ctx, id)
	if err != nil {
		return err
	}
	if by, err := c.defs.ManagerOf(ctx, id); err != nil {
		return err
	} else if by != "" {
		return scouts.Errorf(scouts.EConflict, "managed by %s — remove the file to disable the scout", strings.TrimPrefix(by, "file:"))
	}
	if c.onRelay(s) {
		if err := c.relay.Queue(ctx, protocol.TypeScoutDisable, protocol.ScoutDisable{ScoutID: id}); err != nil {
			return err
		}
	}
	c.Engine.Remove(id)
	if err := c.DB.DeleteScout(ctx, id, c.now()); err != nil {
		return err
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventScoutDeleted, Data: map[string]string{"id": id}})
	return nil
}

// EnsureFirstRun gives a brand-new data directory its first scout: a
// folder scout in review mode on inbox (created if missing), so that a
// newcomer's first experience is the approval loop. It does nothing once
// the first run is recorded, even if the user deleted that scout since.
func (c *Core) EnsureFirstRun(ctx context.Context, inbox string) (created *scouts.Scout, err error) {
	if _, done, err := c.DB.Setting(ctx, "first_run_done"); err != nil || done {
		return nil, err
	}
	if inbox != "" {
		if err := os.MkdirAll(inbox, 0o755); err != nil {
			return nil, scouts.Errorf(scouts.EUnavailable, "cannot create the default inbox folder %s: %v", inbox, err)
		}
		cfg, _ := json.Marshal(map[string]any{"path": inbox})
		cr, err := c.CreateScout(ctx, NewScout{Kind: scouts.KindFolder, Name: "Inbox", Review: true, Enabled: true, Config: cfg})
		if err != nil {
			return nil, err
		}
		created = &cr.Scout
	}
	return created, c.DB.SetSetting(ctx, "first_run_done", c.now().UTC().Format("2006-01-02T15:04:05Z"))
}
