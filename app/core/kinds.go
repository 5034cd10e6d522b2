package core

import (
	"context"
	"encoding/json"
	"os"

	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/effects"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// scoutKind is everything the desktop does differently for one kind of
// scout. Each kind is described once, in newKinds; the rest of the core
// asks the description instead of switching on the kind, so that a kind's
// behaviour is found in one place and a new kind is one more entry.
type scoutKind struct {
	// check validates a new or changed scout's configuration against what
	// the desktop has, normalises it and fills a default name; nil: the
	// configuration is the kind's own business (s.Validate still runs).
	check func(ctx context.Context, s *scouts.Scout) error
	// admit runs once, when the scout is created, after check: what the
	// user should be warned of, or a refusal that force overrides.
	admit func(ctx context.Context, s scouts.Scout, force bool) (warnings []string, err error)
	// open builds the connector of a scout the desktop runs itself; nil
	// for a kind whose items only arrive from the relay (Engine.Ingest).
	open scouts.Opener

	// onRelay reports whether the relay runs or receives this scout (it
	// is then registered, updated and disabled there through the outbox);
	// nil: never.
	onRelay func(s scouts.Scout) bool
	// relayOp is the scout's registration as the outbox keeps it (no
	// secret in it: see beforeSend).
	relayOp func(ctx context.Context, s scouts.Scout) (protocol.ScoutConfig, error)
	// beforeSend completes an outbox operation when it is sent, with what
	// must not wait in the outbox in clear (a refresh token); nil (the
	// hook, or what it returns): sent as kept.
	beforeSend func(ctx context.Context, op protocol.ScoutConfig) (*protocol.ScoutConfig, error)
	// relayDone takes what the relay answered to an accepted operation
	// (an address or a topic it chose).
	relayDone func(ctx context.Context, s scouts.Scout, res protocol.ConfigResult)
	// relayOnline runs when the relay link comes online: what the relay
	// does not keep for an absent desktop is made up for.
	relayOnline func()
	// itemIsSourceRef: the relay's source_ref names the item itself (a
	// Gmail message), so the same one triaged twice is one card, and the
	// desktop reads and acts on it by that name.
	itemIsSourceRef bool
	// fromRelay fills a relay proposal's item (ref.Meta is set) with what
	// the kind knows of it.
	fromRelay func(it client.Item, ref *scouts.ItemRef)

	// executors run the remote actions the kind's cards offer.
	executors map[string]engine.ActionExecutor

	// describe says what a definition of the kind will do, and what in it
	// may surprise the user (a draft's summary and risks).
	describe func(source json.RawMessage) (summary []string, risks []defdraft.Risk)
	// Kind is what the definitions service knows of the kind: how a
	// definition's source reads, the configuration's fields a definition
	// leaves out, and HookToken — items are posted to a relay address
	// guarded by a token that the desktop makes, shows once and can
	// rotate; the relay owns the configuration (the address).
	defsync.Kind
	// connectorRules: the kind's connector applies the scout's rules too
	// (its triage pipeline, here or on the relay), so a change of rules
	// restarts the scout and is sent to the relay.
	connectorRules bool
}

// newKinds describes every kind of scout this desktop knows.
func (c *Core) newKinds() map[scouts.Kind]scoutKind {
	home := c.cfg.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return map[scouts.Kind]scoutKind{
		scouts.KindFolder: {
			check: c.checkFolder,
			describe: func(src json.RawMessage) ([]string, []defdraft.Risk) {
				return defdraft.DescribeFolder(src, folderFromDefinition(src, home))
			},
			Kind: defsync.Kind{
				FromDefinition: func(src json.RawMessage) json.RawMessage { return folderFromDefinition(src, home) },
			},
			admit: c.checkFolderSize,
			open:  c.openFolder,
			executors: map[string]engine.ActionExecutor{
				actions.FileMove: effects.FileMove{Home: home, Protected: c.protectedDirs()},
			},
		},
		scouts.KindWebhook: {
			describe: func(json.RawMessage) ([]string, []defdraft.Risk) {
				return []string{"Receives what other services post to its webhook address (through the relay)."}, nil
			},
			check: func(_ context.Context, s *scouts.Scout) error {
				if s.Name == "" {
					s.Name = "Webhook"
				}
				return nil
			},
			onRelay: func(scouts.Scout) bool { return true },
			relayOp: func(_ context.Context, s scouts.Scout) (protocol.ScoutConfig, error) {
				return protocol.ScoutConfig{ScoutID: s.ID, Kind: string(s.Kind), Name: s.Name, Enabled: s.Enabled}, nil
			},
			relayDone: c.webhookAddress,
			fromRelay: webhookItem,
			Kind:      defsync.Kind{HookToken: true, InternalKeys: []string{"hook_url"}},
		},
		scouts.KindAgent: {
			// An AI agent's proposals arrive through the MCP server
			// (agent.go, Engine.Ingest): no connector, no relay.
			check:    checkAgent,
			describe: describeAgent,
		},
		scouts.KindChain: {
			// Its items are another scout's events (chain.go, through
			// Engine.Ingest): no connector, no relay.
			check:    c.checkChain,
			describe: describeChain,
		},
		scouts.KindGmail: {
			check: c.gmail.Check,
			describe: func(json.RawMessage) ([]string, []defdraft.Risk) {
				return []string{"Reads new mail in a connected Gmail account."}, nil
			},
			open:            c.gmail.Open,
			onRelay:         gmaildesk.OnRelay,
			relayOp:         c.gmail.RelayOp,
			beforeSend:      c.gmail.BeforeSend,
			relayDone:       c.gmail.RelayDone,
			relayOnline:     c.gmail.RelayOnline,
			itemIsSourceRef: true,
			fromRelay:       gmaildesk.Item,
			executors:       c.gmail.Executors(),
			Kind:            defsync.Kind{InternalKeys: []string{"push_topic", "baseline", "rules"}},
			connectorRules:  true,
		},
	}
}

// openers are the engine's connectors by kind, and remote the kinds it
// only ingests.
func openers(kinds map[scouts.Kind]scoutKind) (open map[scouts.Kind]scouts.Opener, remote map[scouts.Kind]bool) {
	open, remote = map[scouts.Kind]scouts.Opener{}, map[scouts.Kind]bool{}
	for name, k := range kinds {
		if k.open != nil {
			open[name] = k.open
		} else {
			remote[name] = true
		}
	}
	return open, remote
}

// executors are the remote actions this desktop can run: those the kinds
// offer, and posting to a webhook, which any card can do.
func (c *Core) executors() map[string]engine.ActionExecutor {
	out := map[string]engine.ActionExecutor{
		actions.WebhookPost: effects.Webhook{Secret: c.cfg.Secrets, Version: c.cfg.Version},
	}
	for _, k := range c.kinds {
		for name, x := range k.executors {
			out[name] = x
		}
	}
	return out
}

// onRelay reports whether the relay runs or receives s.
func (c *Core) onRelay(s scouts.Scout) bool {
	k := c.kinds[s.Kind]
	return k.onRelay != nil && k.onRelay(s)
}

// queueScoutOp tells the relay about a scout it runs or receives (a
// registration or an update), with the webhook token's hash when one was
// made; a scout the relay has nothing to do with is left alone.
func (c *Core) queueScoutOp(ctx context.Context, typ string, s scouts.Scout, hookHash string) error {
	if !c.onRelay(s) {
		return nil
	}
	op, err := c.kinds[s.Kind].relayOp(ctx, s)
	if err != nil {
		return err
	}
	if hookHash != "" {
		op.HookTokenHash = hookHash
	}
	return c.relay.Queue(ctx, typ, op)
}

// beforeSend completes an outbox operation's data at send time (see
// scoutKind.beforeSend); data it does not concern goes as kept.
func (c *Core) beforeSend(ctx context.Context, raw []byte) ([]byte, error) {
	var op protocol.ScoutConfig
	if err := json.Unmarshal(raw, &op); err != nil {
		return raw, nil
	}
	k := c.kinds[scouts.Kind(op.Kind)]
	if k.beforeSend == nil {
		return raw, nil
	}
	done, err := k.beforeSend(ctx, op)
	if err != nil || done == nil {
		return raw, err
	}
	return json.Marshal(done)
}
