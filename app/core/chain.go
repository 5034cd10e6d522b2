package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/graph"
)

// Chain scouts (docs/definitions.md, "Chaining scouts"): a scout of kind
// chain runs on another scout's events — "do X when Y happens". Each
// event of the scout it follows becomes one item of its own, made of the
// card's fields only (never the mail or file behind it), through the
// same rules, learner and modes as any item. Two guards keep chains from
// feeding themselves: the graph of scouts is checked on every save and a
// loop refused (checkLoops), and at run time an item carries how many
// chain steps led to it, refused past the receiving scout's max_depth.

// Events a chain scout can follow.
const (
	ChainEntityCreated = "entity.created" // a card became a task, note, event or project
	ChainActionDone    = "action.done"    // one of a card's actions succeeded
	ChainCardApproved  = "card.approved"  // a card was approved (by a person or a policy)
)

// DefaultChainDepth is how many chain steps may lead to an item when the
// scout's definition does not say; maxChainDepth is the most it may say.
const (
	DefaultChainDepth = 3
	maxChainDepth     = 10
)

// Audit events of chains, on the trail of the card whose event it was.
const (
	AuditChainStarted = "chain.started" // the event became an item of a chain scout
	AuditChainRefused = "chain.refused" // it did not: the chain is past the scout's max_depth
)

// EventChainRefused is published when an event was refused to a chain
// scout past its max_depth (data: the audit event's refs), so that a
// card's trail open in the window shows it.
const EventChainRefused = "chain.refused"

// chainConfig is a chain scout's configuration (its definition's source).
type chainConfig struct {
	On struct {
		// Scout is the followed scout's id or name.
		Scout string `json:"scout"`
		Event string `json:"event"`
	} `json:"on"`
	// MaxDepth: zero is DefaultChainDepth.
	MaxDepth int `json:"max_depth,omitempty"`
}

func parseChain(raw json.RawMessage) (chainConfig, error) {
	var cfg chainConfig
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, scouts.Errorf(scouts.EInvalid, "chain scout configuration: %v", err)
	}
	return cfg, nil
}

func (cfg chainConfig) maxDepth() int {
	if cfg.MaxDepth == 0 {
		return DefaultChainDepth
	}
	return cfg.MaxDepth
}

// checkChain validates a chain scout: the event is one a scout has, the
// depth is bounded and the scout it follows exists, named without doubt.
func (c *Core) checkChain(ctx context.Context, s *scouts.Scout) error {
	if len(s.Config) == 0 {
		return scouts.Errorf(scouts.EInvalid, "a chain scout needs source.on: {scout, event}")
	}
	cfg, err := parseChain(s.Config)
	if err != nil {
		return err
	}
	cfg.On.Scout = strings.TrimSpace(cfg.On.Scout)
	switch cfg.On.Event {
	case ChainEntityCreated, ChainActionDone, ChainCardApproved:
	default:
		return scouts.Errorf(scouts.EInvalid, "source.on.event %q: want %s, %s or %s", cfg.On.Event, ChainEntityCreated, ChainActionDone, ChainCardApproved)
	}
	if cfg.MaxDepth < 0 || cfg.MaxDepth > maxChainDepth {
		return scouts.Errorf(scouts.EInvalid, "source.max_depth %d: want 1 to %d (absent: %d)", cfg.MaxDepth, maxChainDepth, DefaultChainDepth)
	}
	if cfg.On.Scout == "" {
		return scouts.Errorf(scouts.EInvalid, "source.on.scout: which scout's events it runs on (an id or a name)")
	}
	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		return err
	}
	target, err := chainTarget(cfg.On.Scout, list)
	if err != nil {
		return err
	}
	if s.Name == "" {
		s.Name = "After " + target.Name
	}
	s.Config, _ = json.Marshal(cfg)
	return nil
}

// chainTarget finds the scout that ref names: its id, or else its name
// if exactly one scout has it.
func chainTarget(ref string, list []scouts.Scout) (scouts.Scout, error) {
	var named []scouts.Scout
	for _, s := range list {
		if s.ID == ref {
			return s, nil
		}
		if strings.EqualFold(s.Name, ref) {
			named = append(named, s)
		}
	}
	switch len(named) {
	case 1:
		return named[0], nil
	case 0:
		return scouts.Scout{}, scouts.Errorf(scouts.EInvalid, "source.on.scout: no scout has the id or name %q (the scout it follows must exist first)", ref)
	}
	return scouts.Scout{}, scouts.Errorf(scouts.EInvalid, "source.on.scout: %d scouts are named %q: give the id of the one to follow", len(named), ref)
}

func describeChain(src json.RawMessage) ([]string, []defdraft.Risk) {
	cfg, _ := parseChain(src)
	return []string{fmt.Sprintf("Runs on the %s events of the scout %q: each one becomes a card of its own (at most %d chain steps deep).", cfg.On.Event, cfg.On.Scout, cfg.maxDepth())}, nil
}

// Graph is the graph of scouts: chain triggers and write→watch overlaps,
// with the loops marked.
func (c *Core) Graph(ctx context.Context) (graph.Graph, error) {
	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		return graph.Graph{}, err
	}
	g := c.graphOf(list)
	g.MarkCycles()
	return g, nil
}

// checkLoops refuses a save of s that would put it on a loop of scouts,
// naming the loop. A loop elsewhere (made before this check existed) does
// not stop an unrelated save: the graph shows it in red.
func (c *Core) checkLoops(ctx context.Context, s scouts.Scout) error {
	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		return err
	}
	replaced := false
	for i := range list {
		if list[i].ID == s.ID {
			list[i], replaced = s, true
		}
	}
	if !replaced {
		list = append(list, s)
	}
	g := c.graphOf(list)
	if loop := g.LoopThrough(s.ID); loop != nil {
		return scouts.Errorf(scouts.EInvalid, "this would make a loop of scouts: %s — each would start the next for ever; change what one of them follows or where it writes", g.Words(loop))
	}
	return nil
}

// graphOf builds the graph of list: an edge from a scout to each chain
// scout following it, and from a folder scout to each other folder scout
// watching a tree its write scope reaches into (a file it moves there
// would be the other's item). A scout's own folder is left out: what
// Scouts itself writes is never its own item (the folder's cycle guard).
func (c *Core) graphOf(list []scouts.Scout) graph.Graph {
	var g graph.Graph
	folders := map[string]string{} // folder scout id → watched path
	for _, s := range list {
		g.Nodes = append(g.Nodes, graph.Node{ID: s.ID, Name: s.Name, Kind: string(s.Kind), Enabled: s.Enabled})
		if s.Kind == scouts.KindFolder {
			if cfg, err := directory.ParseConfig(s.Config); err == nil {
				folders[s.ID] = cfg.Path
			}
		}
	}
	for _, s := range list {
		switch s.Kind {
		case scouts.KindChain:
			cfg, err := parseChain(s.Config)
			if err != nil {
				continue
			}
			if t, err := chainTarget(cfg.On.Scout, list); err == nil {
				g.Edges = append(g.Edges, graph.Edge{From: t.ID, To: s.ID, Kind: graph.Trigger, Label: "on " + cfg.On.Event})
			}
		case scouts.KindFolder:
			globs, _ := s.WriteScope.Effective(scouts.ScopeFolders)
			for _, w := range list {
				dir, ok := folders[w.ID]
				if !ok || w.ID == s.ID || !scouts.FolderScopeReaches(globs, c.home(), dir) {
					continue
				}
				g.Edges = append(g.Edges, graph.Edge{From: s.ID, To: w.ID, Kind: graph.WriteWatch, Label: "may move files into " + dir})
			}
		}
	}
	return g
}

// home is the user's home folder, which ~ in a write scope stands for.
func (c *Core) home() string {
	if c.cfg.Home != "" {
		return c.cfg.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// chainQueue hands the engine's events to the chain loop without making
// the engine wait: Ingest from inside an emit would re-enter it.
type chainQueue struct {
	mu     sync.Mutex
	events []scouts.Event
	wake   chan struct{}
}

// chainEvent queues an event chain scouts may follow.
func (c *Core) chainEvent(ev scouts.Event) {
	switch ev.Type {
	case scouts.EventEntityCreated, scouts.EventSuggestionResolved, scouts.EventActionUpdated:
	default:
		return
	}
	c.chains.mu.Lock()
	c.chains.events = append(c.chains.events, ev)
	c.chains.mu.Unlock()
	select {
	case c.chains.wake <- struct{}{}:
	default:
	}
}

// chainLoop runs the chain scouts on the queued events until ctx ends,
// after catching up with what they missed while the agent was not running
// them (chainCatchUp).
func (c *Core) chainLoop(ctx context.Context) {
	if err := c.chainCatchUp(ctx); err != nil && ctx.Err() == nil {
		c.log.Warn("chain scouts: catch up", "err", err)
	}
	for {
		c.chains.mu.Lock()
		evs := c.chains.events
		c.chains.events = nil
		c.chains.mu.Unlock()
		for _, ev := range evs {
			if err := c.runChains(ctx, ev); err != nil && ctx.Err() == nil {
				c.log.Warn("chain scouts", "event", ev.Type, "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-c.chains.wake:
		}
	}
}

// chainCatchUp offers every chain scout the events of the scout it follows
// since it was last saved (made, changed, switched on: a chain scout that
// was off does not act later on what happened meanwhile), as they stand
// in the database: an event whose
// announcement was lost (the agent died between the decision's commit and
// the chain's item) becomes its item now. One item per event (the item's
// source ref names the event) keeps the others from coming twice; an
// event refused past max_depth is not said again on its card's trail.
func (c *Core) chainCatchUp(ctx context.Context) error {
	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		return err
	}
	for _, s := range list {
		if s.Kind != scouts.KindChain || !s.Enabled {
			continue
		}
		cfg, err := parseChain(s.Config)
		if err != nil {
			continue
		}
		from, err := chainTarget(cfg.On.Scout, list)
		if err != nil {
			continue
		}
		subs, err := c.chainSubjectsSince(ctx, from.ID, cfg.On.Event, s.UpdatedAt)
		if err != nil {
			return fmt.Errorf("core: chain %s: %w", s.ID, err)
		}
		var refs []string
		for _, sub := range subs {
			refs = append(refs, chainRef(chainDepth(sub.card)+1, sub))
		}
		known, err := c.DB.KnownRefs(ctx, s.ID, refs)
		if err != nil {
			return fmt.Errorf("core: chain %s: %w", s.ID, err)
		}
		for i, sub := range subs {
			depth := chainDepth(sub.card) + 1
			if known[refs[i]] || depth > cfg.maxDepth() {
				continue
			}
			c.log.Info("chain scout: an event missed while the agent was not running it", "scout", s.ID, "event", sub.event, "id", sub.id)
			if err := c.runChain(ctx, s, cfg, from, sub, depth); err != nil {
				return fmt.Errorf("core: chain %s: %w", s.ID, err)
			}
		}
	}
	return nil
}

// chainSubjectsSince are the events of kind event of the scout from since
// since, read from the database.
func (c *Core) chainSubjectsSince(ctx context.Context, from, event string, since time.Time) ([]chainSubject, error) {
	var out []chainSubject
	if event == ChainActionDone {
		runs, err := c.DB.ActionsRunSince(ctx, from, since)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			if r.State != engine.ActionDone {
				continue
			}
			sub, ok, err := c.chainSubjectOf(ctx, scouts.Event{Type: scouts.EventActionUpdated, Data: r})
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, sub)
			}
		}
		return out, nil
	}
	after := ""
	for {
		page, err := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: from, Status: scouts.StatusApproved, After: after, Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, card := range page {
			if card.ResolvedAt.Before(since) {
				continue
			}
			ev := scouts.Event{Type: scouts.EventSuggestionResolved, Data: card}
			if event == ChainEntityCreated {
				if card.ResolvedEntityID == "" {
					continue
				}
				e, err := c.DB.GetEntity(ctx, card.ResolvedKind, card.ResolvedEntityID)
				if scouts.ErrorCode(err) == scouts.ENotFound {
					continue // deleted since
				}
				if err != nil {
					return nil, err
				}
				ev = scouts.Event{Type: scouts.EventEntityCreated, Data: e}
			}
			sub, ok, err := c.chainSubjectOf(ctx, ev)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, sub)
			}
		}
		if len(page) < 1000 {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// chainRef is the source ref of the chain item an event makes: the same
// event, the same ref.
func chainRef(depth int, sub chainSubject) string {
	return fmt.Sprintf("chain:%d:%s:%s", depth, sub.event, sub.id)
}

// chainSubject is what happened, for the scouts following its card's
// scout.
type chainSubject struct {
	event string
	id    string // what the event is about: the entity, the card, the card's action
	title string
	kind  scouts.EntityKind
	card  scouts.Suggestion
}

func (c *Core) chainSubjectOf(ctx context.Context, ev scouts.Event) (sub chainSubject, ok bool, err error) {
	switch d := ev.Data.(type) {
	case scouts.Entity:
		if ev.Type != scouts.EventEntityCreated || d.SourceSuggestionID == "" {
			return sub, false, nil
		}
		sub = chainSubject{event: ChainEntityCreated, id: d.ID, title: d.Title, kind: d.Kind}
		sub.card, err = c.DB.GetSuggestion(ctx, d.SourceSuggestionID)
	case scouts.Suggestion:
		if ev.Type != scouts.EventSuggestionResolved || d.Status != scouts.StatusApproved {
			return sub, false, nil
		}
		kind := d.ResolvedKind
		if kind == "" {
			kind = d.ProposedKind
		}
		sub = chainSubject{event: ChainCardApproved, id: d.ID, title: d.Title, kind: kind, card: d}
	case engine.ActionRun:
		if d.State != engine.ActionDone {
			return sub, false, nil
		}
		sub = chainSubject{event: ChainActionDone, id: d.SuggestionID + "/" + strconv.Itoa(d.N)}
		sub.card, err = c.DB.GetSuggestion(ctx, d.SuggestionID)
		sub.title = sub.card.Title + " (" + d.Action + " done)"
		sub.kind = sub.card.ProposedKind
	default:
		return sub, false, nil
	}
	return sub, err == nil, err
}

// runChains makes ev an item of every chain scout that follows it.
func (c *Core) runChains(ctx context.Context, ev scouts.Event) error {
	sub, ok, err := c.chainSubjectOf(ctx, ev)
	if err != nil || !ok {
		return err
	}
	list, err := c.DB.ListScouts(ctx)
	if err != nil {
		return err
	}
	var from scouts.Scout
	for _, s := range list {
		if s.ID == sub.card.ScoutID {
			from = s
		}
	}
	if from.ID == "" {
		return nil // its scout was deleted since
	}
	depth := chainDepth(sub.card) + 1
	for _, s := range list {
		if s.Kind != scouts.KindChain || !s.Enabled {
			continue
		}
		cfg, err := parseChain(s.Config)
		if err != nil || cfg.On.Event != sub.event {
			continue
		}
		if t, err := chainTarget(cfg.On.Scout, list); err != nil || t.ID != from.ID {
			continue
		}
		if err := c.runChain(ctx, s, cfg, from, sub, depth); err != nil {
			return err
		}
	}
	return nil
}

// runChain makes one event an item of the chain scout s, or refuses it
// past s's max_depth — on the trail of the card whose event it was.
func (c *Core) runChain(ctx context.Context, s scouts.Scout, cfg chainConfig, from scouts.Scout, sub chainSubject, depth int) error {
	refs := map[string]string{"scout_id": s.ID, "from_scout_id": from.ID, "suggestion_id": sub.card.ID,
		"event": sub.event, "depth": strconv.Itoa(depth), "max_depth": strconv.Itoa(cfg.maxDepth())}
	if depth > cfg.maxDepth() {
		c.log.Warn("chain refused past its max_depth", "scout", s.ID, "from", from.ID, "depth", depth)
		err := c.DB.AppendAudit(ctx, scouts.AuditEvent{TraceID: sub.card.TraceID, Stage: scouts.StageTriage, Type: AuditChainRefused,
			Outcome: scouts.OutcomeSkipped, Refs: refs, At: c.now(),
			Summary: fmt.Sprintf("%s did not run on %s: %d chain steps led here, past its max_depth %d", s.Name, sub.event, depth, cfg.maxDepth())})
		if err == nil {
			c.Bus.Publish(scouts.Event{Type: EventChainRefused, Data: refs})
		}
		return err
	}
	ref := chainRef(depth, sub)
	meta := scouts.ItemMetadata{
		Title: sub.title, Excerpt: sub.card.Excerpt, Sender: from.Name, Path: sub.card.Path, URL: sub.card.URL,
		ProposedKind: sub.kind, ReceivedAt: c.now(), Body: sub.card.Excerpt,
		Reason:   fmt.Sprintf("%s in %s (chain step %d of at most %d)", chainEventWords(sub.event), from.Name, depth, cfg.maxDepth()),
		Evidence: &scouts.Evidence{Sender: from.Name, Subject: sub.title, Body: sub.card.Excerpt},
		Facts:    &scouts.ItemFacts{ContentRead: true},
	}
	n, err := c.Engine.Ingest(ctx, s, []scouts.ItemRef{{Ref: ref, Meta: &meta}})
	if err != nil || n == 0 {
		return err // n == 0: the same event came before (one item per event)
	}
	refs["source_ref"] = ref
	return c.DB.AppendAudit(ctx, scouts.AuditEvent{TraceID: sub.card.TraceID, Stage: scouts.StageTriage, Type: AuditChainStarted,
		Outcome: scouts.OutcomeOK, Refs: refs, At: c.now(),
		Summary: fmt.Sprintf("%s runs on it (%s, chain step %d of at most %d)", s.Name, sub.event, depth, cfg.maxDepth())})
}

func chainEventWords(event string) string {
	switch event {
	case ChainEntityCreated:
		return "Created from a card"
	case ChainActionDone:
		return "An action done"
	}
	return "A card approved"
}

// chainDepth is how many chain steps led to card: a chain scout's item
// carries it in its source ref ("chain:2:…"), any other scout's is 0.
func chainDepth(card scouts.Suggestion) int {
	if card.SourceType != scouts.KindChain {
		return 0
	}
	rest, ok := strings.CutPrefix(card.SourceRef, "chain:")
	if !ok {
		return 0
	}
	d, _, _ := strings.Cut(rest, ":")
	n, _ := strconv.Atoi(d)
	return n
}
