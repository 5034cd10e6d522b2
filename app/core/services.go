package core

import (
	"context"
	"encoding/json"

	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/rulebook"
	"github.com/scouts-hq/scouts/app/secretref"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// The scouts' definitions (app/defsync), their rules (app/rulebook),
// drafting in plain words (app/defdraft) and the named secrets
// (app/secretref) are services of their own; this
// is what the core does for them (defsHost, rulesHost) and how the local
// API reaches them.

// newServices builds the definitions, rules and drafting services, once
// the kinds, the relay link and the MCP servers' manager are.
func (c *Core) newServices() {
	c.secrets = secretref.New(c.cfg.SecretStore, c.DB, c.Bus, c.now, c.log)
	c.defs = defsync.New(defsync.Config{Dir: c.cfg.DefinitionsDir, Store: c.DB, Host: defsHost{c},
		Kinds: func(k scouts.Kind) defsync.Kind { return c.kinds[k].Kind },
		Sync:  func(s scouts.Scout) { c.Engine.Sync(s) }, Publish: c.defsPublish, Logger: c.log, Now: c.now,
		Watches: c.watches.hub, PollInterval: c.cfg.PollInterval})
	c.rules = rulebook.New(rulebook.Config{Store: c.DB, Host: rulesHost{c}, Defs: c.defs, Executors: c.executors(),
		ExtraActions: c.mcp.Actions, Publish: c.Bus.Publish, Logger: c.log, Now: c.now})
	ledger, _ := c.ledger()
	c.drafts = defdraft.New(defdraft.Config{Model: c.cfg.Model, ModelBudget: c.cfg.ModelBudget, ModelDailyTokens: c.cfg.ModelDailyTokens,
		Ledger: ledger, RuleOptions: c.rules.Options, SecretNames: c.secrets.Names, Now: c.now,
		Describe: func(k scouts.Kind, src json.RawMessage) ([]string, []defdraft.Risk) {
			if d := c.kinds[k].describe; d != nil {
				return d(src)
			}
			return nil, nil
		}})
}

// Definitions is the scouts' definitions: the definitions folder, each
// scout's versions, export, import and rollback.
func (c *Core) Definitions() *defsync.Service { return c.defs }

// Rules is the scouts' rules.
func (c *Core) Rules() *rulebook.Book { return c.rules }

// Drafts drafts definitions in plain words, and checks them.
func (c *Core) Drafts() *defdraft.Drafter { return c.drafts }

// Secrets is the named secrets, kept in the keyring.
func (c *Core) Secrets() *secretref.Service { return c.secrets }

// defsHost is the core as app/defsync sees it: a definition's scout goes
// through the same checks as one made or edited by hand.
type defsHost struct{ c *Core }

func (h defsHost) CreateScout(ctx context.Context, _ *defsync.Tx, s scouts.Scout) (scouts.Scout, string, error) {
	in := NewScout{ID: s.ID, Kind: s.Kind, Name: s.Name, Review: s.Review, Enabled: s.Enabled, Config: s.Config,
		Schedule: s.Schedule, Budget: s.Budget, WriteScope: s.WriteScope}
	s, out, hookHash, err := h.c.newScout(ctx, in)
	if err != nil {
		return s, "", err
	}
	if err := h.c.storeScout(ctx, s, hookHash); err != nil {
		return s, "", err
	}
	h.c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
	return s, out.HookToken, nil
}

func (h defsHost) UpdateScout(ctx context.Context, _ *defsync.Tx, id string, set defsync.Settings) error {
	s, _, err := h.c.updateScout(ctx, id, ScoutPatch{Name: set.Name, Enabled: set.Enabled, Review: set.Review, Config: set.Config,
		Schedule: set.Schedule, Budget: set.Budget, WriteScope: set.WriteScope})
	if err != nil {
		return err
	}
	h.c.Bus.Publish(scouts.Event{Type: scouts.EventScoutUpdated, Data: s})
	return nil
}

func (h defsHost) ReplaceRules(ctx context.Context, tx *defsync.Tx, scoutID string, docs []json.RawMessage) error {
	return h.c.rules.Replace(ctx, tx, scoutID, docs)
}

func (h defsHost) RuleOptions(kind scouts.Kind) rules.Options { return h.c.rules.Options(kind) }

// rulesHost is the core as app/rulebook sees it.
type rulesHost struct{ c *Core }

func (h rulesHost) ConnectorRules(kind scouts.Kind) bool { return h.c.kinds[kind].connectorRules }

func (h rulesHost) RelayTriaged(s scouts.Scout) bool { return gmaildesk.RelayTriaged(s) }

func (h rulesHost) QueueScoutUpdate(ctx context.Context, s scouts.Scout) error {
	return h.c.queueScoutOp(ctx, protocol.TypeScoutUpdate, s, "")
}
