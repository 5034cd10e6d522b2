package core

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/connectors/directory"
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
	// Force creates a folder scout over a tree larger than
	// Config.FolderMaxFiles.
	Force bool
	// ID is the id to give the scout (an imported definition's); empty:
	// a new one.
	ID string
	// fromDefinition: an import creates the scout and records its
	// version once its rules are in.
	fromDefinition bool
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

// CreateScout validates and stores a new scout and starts it.
func (c *Core) CreateScout(ctx context.Context, in NewScout) (Created, error) {
	now := c.now()
	s := scouts.Scout{
		ID: in.ID, Kind: in.Kind, Name: strings.TrimSpace(in.Name),
		Enabled: in.Enabled, Review: in.Review, Config: in.Config, CreatedAt: now, UpdatedAt: now,
		Schedule: in.Schedule, Budget: in.Budget,
	}
	if s.ID == "" {
		s.ID = scouts.NewID("sc")
	} else if _, err := c.DB.GetScout(ctx, s.ID); err == nil {
		return Created{}, scouts.Errorf(scouts.EConflict, "a scout with id %s exists", s.ID)
	}
	var out Created
	var hookHash string
	if s.Kind == scouts.KindWebhook {
		l := c.currentRelay()
		if l == nil {
			return out, scouts.Errorf(scouts.EInvalid, "webhook scouts are received by a relay: log in to one first (scouts relay login URL TOKEN, or Settings → Relay)")
		}
		out.HookToken, hookHash = newHookToken()
		s.Config, _ = json.Marshal(webhookConfig{HookURL: strings.TrimSuffix(l.url, "/") + "/api/v1/hooks/" + s.ID})
	}
	if err := c.checkScout(ctx, &s); err != nil {
		return out, err
	}
	if s.Kind == scouts.KindFolder {
		w, err := c.checkFolderSize(ctx, s.Config, in.Force)
		if err != nil {
			return out, err
		}
		out.Warnings = w
	}
	if err := c.DB.CreateScout(ctx, s); err != nil {
		return out, err
	}
	// The runner starts before the relay hears of the scout: the relay's
	// answer may update the scout (a relay-ping topic) and restart it, and
	// must not be overtaken by this start with the older configuration.
	c.Engine.Sync(s)
	if err := c.queueGmailOp(ctx, protocol.TypeScoutRegister, s); err != nil {
		return out, err
	}
	if s.Kind == scouts.KindWebhook {
		// Registered through the outbox: it reaches the relay when it can,
		// exactly once, even if the desktop is offline now.
		if err := c.queueRelayOp(ctx, protocol.TypeScoutRegister, protocol.ScoutConfig{ScoutID: s.ID, Kind: string(s.Kind),
			Name: s.Name, Enabled: s.Enabled, HookTokenHash: hookHash}); err != nil {
			return out, err
		}
	}
	if !in.fromDefinition {
		if _, err := c.SnapshotDefinition(ctx, s.ID, "api", "created"); err != nil {
			return out, err
		}
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
	out.Scout = s
	return out, nil
}

// checkScout validates s and normalises its configuration, filling a
// default name.
func (c *Core) checkScout(ctx context.Context, s *scouts.Scout) error {
	switch s.Kind {
	case scouts.KindFolder:
		cfg, err := directory.ParseConfig(s.Config)
		if err != nil {
			return err
		}
		if err := directory.CheckRoot(cfg.Path, c.protectedDirs()); err != nil {
			return err
		}
		norm, err := json.Marshal(cfg)
		if err != nil {
			return err
		}
		s.Config = norm
		if s.Name == "" {
			s.Name = filepath.Base(cfg.Path)
		}
		// Two scouts on one folder would suggest every file twice.
		others, err := c.DB.ListScouts(ctx)
		if err != nil {
			return err
		}
		for _, o := range others {
			if o.ID == s.ID || o.Kind != scouts.KindFolder {
				continue
			}
			if ocfg, err := directory.ParseConfig(o.Config); err == nil && samePath(ocfg.Path, cfg.Path) {
				return scouts.Errorf(scouts.EConflict, "scout %q (%s) already watches %s", o.Name, o.ID, cfg.Path)
			}
		}
	case scouts.KindWebhook:
		if s.Name == "" {
			s.Name = "Webhook"
		}
	case scouts.KindGmail:
		if err := c.checkGmail(ctx, s); err != nil {
			return err
		}
	}
	if err := s.Validate(); err != nil {
		return err
	}
	return c.checkRunSettings(s)
}

// Defaults for Config.FolderWarnFiles and FolderMaxFiles. A scan handles
// 100 000 files in bounded memory (docs/benchmarks.md), but a tree that
// large is seldom what was meant: its first scan takes a while and every
// change in it can become a card.
const (
	DefaultFolderWarnFiles = 10_000
	DefaultFolderMaxFiles  = 100_000
)

// checkFolderSize counts the files of a new folder scout's tree (up to the
// hard limit): above FolderWarnFiles the answer warns with the count, above
// FolderMaxFiles the scout is refused unless forced.
func (c *Core) checkFolderSize(ctx context.Context, raw json.RawMessage, force bool) ([]string, error) {
	cfg, err := directory.ParseConfig(raw)
	if err != nil {
		return nil, err
	}
	warnAt, maxFiles := c.cfg.FolderWarnFiles, c.cfg.FolderMaxFiles
	if warnAt <= 0 {
		warnAt = DefaultFolderWarnFiles
	}
	if maxFiles <= 0 {
		maxFiles = DefaultFolderMaxFiles
	}
	n, err := directory.CountFiles(ctx, cfg, c.protectedDirs(), maxFiles+1)
	if err != nil {
		return nil, err
	}
	switch {
	case n > maxFiles && !force:
		return nil, scouts.Errorf(scouts.EInvalid, "folder %s holds more than %s files (counting stopped there): "+
			"its first scan would take long and any change in it could become a card. Choose a smaller folder or narrow it "+
			"with include globs; to watch it anyway, confirm with --force (in the API: \"force\": true)", cfg.Path, thousands(maxFiles))
	case n > maxFiles:
		return []string{fmt.Sprintf("folder %s holds more than %s files; watching it as you confirmed (force): "+
			"its first scan will take a while", cfg.Path, thousands(maxFiles))}, nil
	case n > warnAt:
		w := fmt.Sprintf("folder %s holds %s files: its first scan will take a while, and each new or changed file in it may become a card", cfg.Path, thousands(n))
		if cfg.IncludeExisting {
			w += "; with include_existing every one of them will be suggested"
		}
		return []string{w + ". Narrow it with include globs if that is not what you want"}, nil
	}
	return nil, nil
}

// thousands writes n with thousands separators: 16,769.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// protectedDirs are the folders no folder scout reads: the data directory
// (the database, the lock, the API token) and the configured others.
func (c *Core) protectedDirs() []string {
	dirs := append([]string{}, c.cfg.ProtectedDirs...)
	if c.cfg.DataDir != "" {
		if abs, err := filepath.Abs(c.cfg.DataDir); err == nil {
			dirs = append(dirs, abs)
		}
	}
	return dirs
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
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
	// WriteFile edits a scout that a definitions file manages by writing
	// the file too; without it such an edit is refused.
	WriteFile bool
	// fromDefinition: the change comes from a definition (its file, an
	// import, a rollback), which records the version itself.
	fromDefinition bool
}

// UpdateScout applies p to a scout and restarts it with the new settings.
func (c *Core) UpdateScout(ctx context.Context, id string, p ScoutPatch) (Created, error) {
	var out Created
	s, err := c.DB.GetScout(ctx, id)
	if err != nil {
		return out, err
	}
	managedBy, err := c.managedBy(ctx, id)
	if err != nil {
		return out, err
	}
	if managedBy != "" && !p.fromDefinition && !p.WriteFile {
		return out, errManaged(managedBy)
	}
	if p.RotateHookToken && s.Kind != scouts.KindWebhook {
		return out, scouts.Errorf(scouts.EInvalid, "only webhook scouts have a token to rotate")
	}
	if s.Kind == scouts.KindWebhook && len(p.Config) > 0 {
		return out, scouts.Errorf(scouts.EInvalid, "a webhook scout's configuration is managed by the relay")
	}
	if p.Name != nil {
		s.Name = strings.TrimSpace(*p.Name)
		if s.Name == "" {
			return out, scouts.Errorf(scouts.EInvalid, "scout name cannot be empty")
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
	if p.Include != nil || p.Exclude != nil {
		if s.Kind != scouts.KindFolder {
			return out, scouts.Errorf(scouts.EInvalid, "only folder scouts have include and exclude globs")
		}
		var m map[string]any
		if err := json.Unmarshal(s.Config, &m); err != nil {
			return out, scouts.Errorf(scouts.EInvalid, "scout config is not a JSON object: %v", err)
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
		return out, err
	}
	if err := c.DB.UpdateScout(ctx, s); err != nil {
		return out, err
	}
	c.Engine.Sync(s) // before the relay's answer can restart it (see CreateScout)
	if err := c.queueGmailOp(ctx, protocol.TypeScoutUpdate, s); err != nil {
		return out, err
	}
	if s.Kind == scouts.KindWebhook {
		op := protocol.ScoutConfig{ScoutID: s.ID, Kind: string(s.Kind), Name: s.Name, Enabled: s.Enabled}
		if p.RotateHookToken {
			out.HookToken, op.HookTokenHash = newHookToken()
		}
		if err := c.queueRelayOp(ctx, protocol.TypeScoutUpdate, op); err != nil {
			return out, err
		}
	}
	if !p.fromDefinition {
		if _, err := c.SnapshotDefinition(ctx, s.ID, "api", ""); err != nil {
			return out, err
		}
		if managedBy != "" {
			if err := c.writeDefinitionFile(ctx, s.ID, managedBy); err != nil {
				return out, err
			}
		}
	}
	c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
	out.Scout = s
	return out, nil
}

// DeleteScout stops and deletes a scout. What it produced and the user
// decided stays.
func (c *Core) DeleteScout(ctx context.Context, id string) error {
	s, err := c.DB.GetScout(ctx, id)
	if err != nil {
		return err
	}
	if by, err := c.managedBy(ctx, id); err != nil {
		return err
	} else if by != "" {
		return scouts.Errorf(scouts.EConflict, "managed by %s — remove the file to disable the scout", strings.TrimPrefix(by, "file:"))
	}
	if s.Kind == scouts.KindWebhook || isRelayGmail(s) {
		if err := c.queueRelayOp(ctx, protocol.TypeScoutDisable, protocol.ScoutDisable{ScoutID: id}); err != nil {
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
