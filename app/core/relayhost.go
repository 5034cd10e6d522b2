package core

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/app/relaylink"
	"github.com/scouts-hq/scouts/relay/client"
	"github.com/scouts-hq/scouts/relay/protocol"
	"github.com/scouts-hq/scouts/scouts"
)

// The desktop's relay link lives in app/relaylink; this is what the core
// does for it (relayHost).

// newRelay builds the core's relay link; Start connects it.
func (c *Core) newRelay() *relaylink.Link {
	return relaylink.New(relaylink.Config{Host: relayHost{c}, Store: c.DB, Bus: c.Bus, Logger: c.log, Now: c.now,
		Version: c.cfg.Version, URL: c.cfg.RelayURL, Token: c.cfg.RelayToken, Keyring: c.cfg.RelayKeyring})
}

// Relay is the desktop's relay link: its status, logging in and out.
func (c *Core) Relay() *relaylink.Link { return c.relay }

// relayHost is the core as app/relaylink sees it.
type relayHost struct{ c *Core }

func (h relayHost) Scout(ctx context.Context, id string) (scouts.Scout, error) {
	return h.c.DB.GetScout(ctx, id)
}

func (h relayHost) ItemName(sourceType, proposalID, sourceRef string) string {
	if h.c.kinds[scouts.Kind(sourceType)].itemIsSourceRef {
		return sourceRef
	}
	return proposalID
}

func (h relayHost) FillItem(it client.Item, ref *scouts.ItemRef) {
	if fill := h.c.kinds[scouts.Kind(it.Proposal.SourceType)].fromRelay; fill != nil {
		fill(it, ref)
	}
}

func (h relayHost) Ingest(ctx context.Context, s scouts.Scout, items []scouts.ItemRef) (int, error) {
	return h.c.Engine.Ingest(ctx, s, items)
}

func (h relayHost) Expire(ctx context.Context, s scouts.Scout, missing scouts.ItemRef, summary string) error {
	_, _, err := h.c.Engine.ExpireItem(ctx, s, missing, summary)
	return err
}

func (h relayHost) RecordHealth(ctx context.Context, scoutID string, n int, err error) {
	h.c.Engine.RecordHealth(ctx, scoutID, n, err)
}

func (h relayHost) AuditScoutStatus(ctx context.Context, scoutID, actor, state, message string) {
	h.c.auditScoutStatus(ctx, scoutID, actor, state, message)
}

func (h relayHost) PendingOps(ctx context.Context) ([]client.Op, error) {
	entries, err := h.c.DB.PendingOutbox(ctx)
	if err != nil {
		return nil, err
	}
	var ops []client.Op
	for _, e := range entries {
		switch e.Action {
		case protocol.TypeScoutRegister, protocol.TypeScoutUpdate, protocol.TypeScoutDisable:
			data, err := h.c.beforeSend(ctx, []byte(e.Params))
			if err != nil {
				// No token (the account was disconnected, the keyring is
				// locked): the operation waits, and the scout says why.
				var op protocol.ScoutConfig
				json.Unmarshal([]byte(e.Params), &op)
				h.c.Engine.RecordHealth(ctx, op.ScoutID, 0, fmt.Errorf("cannot hand Gmail access to the relay: %w", err))
				continue
			}
			ops = append(ops, client.Op{Key: e.Key, Type: e.Action, Data: json.RawMessage(data)})
		}
	}
	return ops, nil
}

// RecordRelayAnswer writes the relay's answer into the scout as it is now,
// as a change of the definitions (of what a definition leaves out): a copy
// read before a change the person made meanwhile would undo it, and the
// scout it restarts restarts once the change is done.
func (h relayHost) RecordRelayAnswer(ctx context.Context, res protocol.ConfigResult) {
	h.c.defs.Change(ctx, defsync.Edit{ScoutID: res.ScoutID, Internal: true}, func(*defsync.Tx) error {
		if s, err := h.c.DB.GetScout(ctx, res.ScoutID); err == nil {
			if done := h.c.kinds[s.Kind].relayDone; done != nil {
				done(ctx, s, res)
			}
		}
		return nil
	})
}

func (h relayHost) Online() {
	for _, k := range h.c.kinds {
		if k.relayOnline != nil {
			k.relayOnline()
		}
	}
}

func (h relayHost) MailboxChanged(scoutID string) { h.c.gmail.MailboxChanged(scoutID) }

// AuditScoutStatus is the audit event of news about a scout as a whole: a
// relay's status report, a recovered Gmail cursor.
const AuditScoutStatus = "scout.status"

// auditScoutStatus records news about a scout as a whole (not about one
// item).
func (c *Core) auditScoutStatus(ctx context.Context, scoutID, actor, state, message string) {
	ev := scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageSource, Type: AuditScoutStatus,
		Outcome: scouts.OutcomeOK, Summary: message, Refs: map[string]string{"scout_id": scoutID, "state": state, "actor": actor},
		At: c.now()}
	if state != protocol.ScoutOK {
		ev.Outcome = scouts.OutcomeError
	}
	if err := c.DB.AppendAudit(ctx, ev); err != nil {
		c.log.Warn("record scout status", "scout", scoutID, "err", err)
	}
}
