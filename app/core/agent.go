package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/scouts"
)

// What the agent kind of scout does on the desktop (kinds.go): an AI
// agent connected to Scouts' MCP server (app/mcpserve) proposes tasks,
// notes, events and actions; each proposal arrives through Engine.Ingest
// like a webhook's item, into a scout of the agent's own — one per client,
// named by the client — and a person decides it like any other card.

// agentConfig is an agent scout's configuration: which client it is.
type agentConfig struct {
	Client string `json:"client"`
}

// Limits on what an agent may send, so that a proposal is a card and not
// a document.
const (
	maxAgentClient = 200
	maxAgentReason = 1000
	maxAgentKey    = 200
	maxAgentURL    = 2048
)

// AgentProposal is what an AI agent proposes.
type AgentProposal struct {
	// Client is the agent's name (the MCP client's name from initialize).
	Client string
	// Kind is what approving the card creates; empty: a task.
	Kind  scouts.EntityKind
	Title string
	Body  string
	URL   string
	// Reason is why the agent proposes it, in its words (shown on the card).
	Reason string
	// Due (tasks), StartsAt and EndsAt (events) are fields the agent
	// states; zero: not stated.
	Due, StartsAt, EndsAt time.Time
	AllDay                bool
	// Action and Params: an action from the catalogue the agent proposes
	// with the card (run only when the card is approved).
	Action string
	Params json.RawMessage
	// Key makes a retried proposal the same card: the same key from the
	// same client is one card. Empty: the proposal's content is its key.
	Key string
}

// checkAgent normalises an agent scout's configuration.
func checkAgent(_ context.Context, s *scouts.Scout) error {
	var cfg agentConfig
	if len(s.Config) > 0 {
		if err := json.Unmarshal(s.Config, &cfg); err != nil {
			return scouts.Errorf(scouts.EInvalid, "agent scout configuration: %v", err)
		}
	}
	cfg.Client = strings.TrimSpace(cfg.Client)
	if cfg.Client == "" {
		cfg.Client = strings.TrimSpace(s.Name)
	}
	if cfg.Client == "" {
		return scouts.Errorf(scouts.EInvalid, "an agent scout needs its client's name (source.client)")
	}
	if len(cfg.Client) > maxAgentClient {
		return scouts.Errorf(scouts.EInvalid, "the client's name is longer than %d bytes", maxAgentClient)
	}
	if s.Name == "" {
		s.Name = "Agent: " + cfg.Client
	}
	s.Config, _ = json.Marshal(cfg)
	return nil
}

func describeAgent(src json.RawMessage) ([]string, []defdraft.Risk) {
	var cfg agentConfig
	json.Unmarshal(src, &cfg)
	return []string{"Receives what the AI agent " + cfg.Client + " proposes through Scouts' MCP server; nothing it proposes happens before a person approves it."}, nil
}

// agentScout is the scout of client, created on its first proposal.
func (c *Core) agentScout(ctx context.Context, client string) (scouts.Scout, error) {
	c.agentMu.Lock()
	defer c.agentMu.Unlock()
	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		return scouts.Scout{}, err
	}
	for _, s := range list {
		if s.Kind != scouts.KindAgent {
			continue
		}
		var cfg agentConfig
		if json.Unmarshal(s.Config, &cfg) == nil && cfg.Client == client {
			return s, nil
		}
	}
	cfg, _ := json.Marshal(agentConfig{Client: client})
	made, err := c.CreateScout(ctx, NewScout{Kind: scouts.KindAgent, Name: "Agent: " + client, Review: true, Enabled: true, Config: cfg})
	if err != nil {
		return scouts.Scout{}, err
	}
	return made.Scout, nil
}

// ProposeFromAgent makes p a card in the agent's scout, through the same
// rules, learner, lanes and modes as any item, and returns it; created is
// false when the same proposal (its key, or its content) was made before.
// Nothing is approved, rejected or run here.
func (c *Core) ProposeFromAgent(ctx context.Context, p AgentProposal) (sug scouts.Suggestion, created bool, err error) {
	if err := p.normalise(); err != nil {
		return sug, false, err
	}
	sc, err := c.agentScout(ctx, p.Client)
	if err != nil {
		return sug, false, err
	}
	if !sc.Enabled {
		return sug, false, scouts.Errorf(scouts.EConflict, "the person has switched off the scout of %s: proposals are not accepted", p.Client)
	}
	meta := scouts.ItemMetadata{
		Title: p.Title, Excerpt: excerpt(p.Body, 280), Sender: p.Client, URL: p.URL, ProposedKind: p.Kind,
		ReceivedAt: c.now(), Body: p.Body,
		Evidence: &scouts.Evidence{Sender: p.Client, Subject: p.Title, Body: p.Body},
		Facts:    &scouts.ItemFacts{ContentRead: true},
	}
	meta.Reason = "Proposed by the AI agent " + p.Client
	if p.Reason != "" {
		meta.Reason += ": " + p.Reason
	}
	if !p.Due.IsZero() || !p.StartsAt.IsZero() {
		meta.Given = &scouts.GivenFields{Due: p.Due, StartsAt: p.StartsAt, EndsAt: p.EndsAt, AllDay: p.AllDay}
	}
	if p.Action != "" {
		params, err := c.Engine.CheckSourceAction(ctx, sc, p.Action, p.Params)
		if err != nil {
			return sug, false, err
		}
		meta.Actions = []scouts.RuleAction{{Action: p.Action, Params: params}}
	}
	ref := p.ref()
	n, err := c.Engine.Ingest(ctx, sc, []scouts.ItemRef{{Ref: ref, Meta: &meta}})
	if err != nil {
		return sug, false, err
	}
	sug, err = c.DB.SuggestionByRef(ctx, sc.ID, ref)
	return sug, n > 0, err
}

// normalise checks what the agent sent and trims it; every refusal says
// what to change.
func (p *AgentProposal) normalise() error {
	p.Client = strings.TrimSpace(p.Client)
	if p.Client == "" {
		p.Client = "unnamed agent"
	}
	if len(p.Client) > maxAgentClient {
		p.Client = clipText(p.Client, maxAgentClient)
	}
	p.Title = strings.TrimSpace(p.Title)
	p.Reason = strings.TrimSpace(p.Reason)
	p.Action = strings.TrimSpace(p.Action)
	p.URL = strings.TrimSpace(p.URL)
	if p.Kind == "" {
		p.Kind = scouts.EntityTask
	}
	if _, err := scouts.ParseEntityKind(string(p.Kind)); err != nil || strings.HasSuffix(string(p.Kind), "s") {
		return scouts.Errorf(scouts.EInvalid, "kind %q: want task, note, event or project", p.Kind)
	}
	for name, v := range map[string]string{"title": p.Title, "body": p.Body, "reason": p.Reason, "url": p.URL, "key": p.Key, "action": p.Action} {
		if !utf8.ValidString(v) {
			return scouts.Errorf(scouts.EInvalid, "%s is not valid UTF-8", name)
		}
	}
	switch {
	case p.Title == "":
		return scouts.Errorf(scouts.EInvalid, "title is required: what the card says in one line")
	case len(p.Title) > scouts.MaxTitleBytes:
		return scouts.Errorf(scouts.EInvalid, "title is longer than %d bytes", scouts.MaxTitleBytes)
	case len(p.Body) > scouts.MaxBodyBytes:
		return scouts.Errorf(scouts.EInvalid, "body is longer than %d bytes", scouts.MaxBodyBytes)
	case len(p.Reason) > maxAgentReason:
		return scouts.Errorf(scouts.EInvalid, "reason is longer than %d bytes", maxAgentReason)
	case len(p.Key) > maxAgentKey:
		return scouts.Errorf(scouts.EInvalid, "key is longer than %d bytes", maxAgentKey)
	case len(p.URL) > maxAgentURL:
		return scouts.Errorf(scouts.EInvalid, "url is longer than %d bytes", maxAgentURL)
	case p.URL != "" && !strings.HasPrefix(p.URL, "https://") && !strings.HasPrefix(p.URL, "http://"):
		return scouts.Errorf(scouts.EInvalid, "url must start with https:// or http://")
	case p.Kind != scouts.EntityTask && !p.Due.IsZero():
		return scouts.Errorf(scouts.EInvalid, "due is for tasks; an event has starts_at and ends_at")
	case p.Kind != scouts.EntityEvent && (!p.StartsAt.IsZero() || !p.EndsAt.IsZero()):
		return scouts.Errorf(scouts.EInvalid, "starts_at and ends_at are for events")
	case p.Kind == scouts.EntityEvent && p.StartsAt.IsZero():
		return scouts.Errorf(scouts.EInvalid, "an event needs starts_at")
	case !p.EndsAt.IsZero() && p.EndsAt.Before(p.StartsAt):
		return scouts.Errorf(scouts.EInvalid, "ends_at is before starts_at")
	case p.Action == "" && len(p.Params) > 0 && string(p.Params) != "null":
		return scouts.Errorf(scouts.EInvalid, "params without an action")
	}
	return nil
}

// ref is the proposal's source ref: its key, or its content, hashed, so
// that a retried proposal is the same card.
func (p AgentProposal) ref() string {
	h := sha256.New()
	if p.Key != "" {
		h.Write([]byte("key\x00" + p.Key))
		return "key:" + hex.EncodeToString(h.Sum(nil))[:32]
	}
	b, _ := json.Marshal([]any{p.Kind, p.Title, p.Body, p.URL, p.Reason, p.Due, p.StartsAt, p.EndsAt, p.AllDay, p.Action, p.Params})
	h.Write(b)
	return "content:" + hex.EncodeToString(h.Sum(nil))[:32]
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

const mcpHTTPKey = "mcp_http"

// EventMCPServeUpdated is published when Scouts' MCP endpoint over HTTP
// is switched on or off.
const EventMCPServeUpdated = "mcp.serve.updated"

// MCPHTTP reports whether Scouts' MCP server answers over streamable HTTP
// on the local API's TCP listener (off unless the person switched it on).
func (c *Core) MCPHTTP(ctx context.Context) (bool, error) {
	v, _, err := c.DB.Setting(ctx, mcpHTTPKey)
	return v == "true", err
}

// SetMCPHTTP switches the MCP endpoint over HTTP on or off, on the audit
// trail: it lets whoever holds its token propose cards.
func (c *Core) SetMCPHTTP(ctx context.Context, on bool) error {
	v, word := "false", "off"
	if on {
		v, word = "true", "on"
	}
	if err := c.DB.SetSetting(ctx, mcpHTTPKey, v); err != nil {
		return err
	}
	now := c.now()
	if err := c.DB.AppendAudit(ctx, scouts.AuditEvent{TraceID: scouts.NewID("tr"), Stage: scouts.StageDecision, Type: AuditMCPServe,
		Outcome: scouts.OutcomeOK, Summary: "Scouts' MCP endpoint over HTTP switched " + word, Refs: map[string]string{"http": v}, At: now}); err != nil {
		return err
	}
	c.Bus.Publish(scouts.Event{Type: EventMCPServeUpdated, Data: map[string]bool{"http": on}})
	return nil
}

// AuditMCPServe records the MCP endpoint over HTTP switched on or off.
const AuditMCPServe = "mcp.serve.changed"
