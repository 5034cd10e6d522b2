// Package screener is the screener: on the first card from a new sender
// (a mailing list, a folder), two keys — always show it, always screen it.
// A key writes an explicit rule at the top of the scout's rules (through
// the rulebook, so it is listed, edited and removed like any rule), settles
// every card from it that waits, and teaches the learner through the
// engine's own decisions. The rule decides every later card; removing it
// gives those back to the learner, since a card a rule placed teaches
// nothing by itself (docs/triage.md, "The screener").
package screener

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/rulebook"
	"github.com/scouts-hq/scouts/scouts"
)

// Store is what the screener reads of the cards (localdb.DB).
type Store interface {
	GetSuggestion(ctx context.Context, id string) (scouts.Suggestion, error)
	ListSuggestions(ctx context.Context, f localdb.SuggestionFilter) ([]scouts.Suggestion, error)
}

// Rules are the scouts' rules (rulebook.Book).
type Rules interface {
	List(ctx context.Context, scoutID string) ([]rulebook.RuleView, error)
	Add(ctx context.Context, scoutID string, doc []byte, position int) (rulebook.RuleView, error)
	Delete(ctx context.Context, scoutID, ruleID string) error
}

// Lanes are the engine's decisions that move a card and teach the
// learner (engine.Engine).
type Lanes interface {
	BringBack(ctx context.Context, id, actor string) (scouts.Suggestion, error)
	Screen(ctx context.Context, id, actor string) (scouts.Suggestion, error)
	Reject(ctx context.Context, id, actor string) (scouts.Suggestion, error)
}

// Config configures a Screener.
type Config struct {
	Store  Store
	Rules  Rules
	Lanes  Lanes
	Logger *slog.Logger
	Now    func() time.Time
}

// Screener applies the screener's keys and tells which cards offer them.
// Its methods are safe for concurrent use.
type Screener struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	firsts map[string]*scoutFirsts // per scout: the first card of each key
}

// New returns a screener.
func New(cfg Config) *Screener {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Screener{cfg: cfg, log: cfg.Logger, firsts: map[string]*scoutFirsts{}}
}

// Result is what a key did.
type Result struct {
	Rule   rulebook.RuleView
	Choice Choice
	Key    Key
	// Replaced is the id of the screener rule with the other choice for
	// the same sender that the new one replaced (a change of mind).
	Replaced string
	// Settled are the cards from the sender that were waiting, as they
	// are now: in the inbox (always show), or rejected in Screened
	// (always screen).
	Settled []scouts.Suggestion
}

// Apply is a screener key pressed on a card: the rule for the card's
// sender (list, folder) first in its scout's rules, and every pending card
// from it settled. EInvalid for a card with no sender the rules can test,
// ENotFound for no such card, EConflict when the same key was already
// pressed for this sender.
func (s *Screener) Apply(ctx context.Context, suggestionID string, c Choice, actor string) (Result, error) {
	if _, err := ParseChoice(string(c)); err != nil {
		return Result{}, err
	}
	sg, err := s.cfg.Store.GetSuggestion(ctx, suggestionID)
	if err != nil {
		return Result{}, err
	}
	k, ok := KeyOf(sg)
	if !ok {
		return Result{}, scouts.Errorf(scouts.EInvalid, "suggestion %s has no sender, list or folder the screener can name (a %s card)", sg.ID, sg.SourceType)
	}
	return s.ApplyKey(ctx, sg.ScoutID, k, c, actor)
}

// ApplyKey is a screener key pressed on a sender (list, folder) of a
// scout rather than on one of its cards (the Senders view): the same rule,
// the same settling. EConflict when the same key was already pressed for
// it.
func (s *Screener) ApplyKey(ctx context.Context, scoutID string, k Key, c Choice, actor string) (Result, error) {
	if _, err := ParseChoice(string(c)); err != nil {
		return Result{}, err
	}
	res := Result{Choice: c, Key: k}
	existing, err := s.ruleFor(ctx, scoutID, k)
	if err != nil {
		return Result{}, err
	}
	if existing.RuleID != "" {
		if existing.Choice == c {
			return Result{}, scouts.Errorf(scouts.EConflict, "%s already: rule %q (remove it to let the learner judge this %s again)",
				existing.Why(s.cfg.Now()), existing.RuleID, k.Of)
		}
		// A change of mind: the newer choice replaces the older one.
		if err := s.cfg.Rules.Delete(ctx, scoutID, existing.RuleID); err != nil {
			return Result{}, fmt.Errorf("screener: replacing rule %s: %w", existing.RuleID, err)
		}
		res.Replaced = existing.RuleID
	}
	if res.Rule, err = s.cfg.Rules.Add(ctx, scoutID, ruleDoc(c, k, s.cfg.Now()), 0); err != nil {
		return Result{}, err
	}
	if res.Settled, err = s.settle(ctx, scoutID, k, c, actor); err != nil {
		return res, fmt.Errorf("screener: the rule %s was added, but settling the cards from %s failed: %w", res.Rule.Rule.ID, k, err)
	}
	s.log.Info("screener: rule added", "scout", scoutID, "rule", res.Rule.Rule.ID, "key", k.Of, "settled", len(res.Settled))
	return res, nil
}

// Rules returns what each of the scout's screener rules says.
func (s *Screener) Rules(ctx context.Context, scoutID string) ([]Info, error) {
	views, err := s.cfg.Rules.List(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, v := range views {
		if i, ok := ParseRuleID(v.Rule.ID); ok {
			out = append(out, i)
		}
	}
	return out, nil
}

// ruleFor returns the scout's screener rule for k, if any.
func (s *Screener) ruleFor(ctx context.Context, scoutID string, k Key) (Info, error) {
	views, err := s.cfg.Rules.List(ctx, scoutID)
	if err != nil {
		return Info{}, err
	}
	for _, v := range views {
		if i, ok := ParseRuleID(v.Rule.ID); ok && i.Is(k) {
			return i, nil
		}
	}
	return Info{}, nil
}

// settle decides where each pending card from k goes, through the
// engine's decisions so that the learner learns what they teach: always
// show brings back the cards below the inbox (the learner learns they
// belong there; one already in the inbox waits for its decision, which
// teaches); always screen moves them to Screened and rejects them there
// — the person said they do not want them, which is what a rejection
// teaches.
func (s *Screener) settle(ctx context.Context, scoutID string, k Key, c Choice, actor string) ([]scouts.Suggestion, error) {
	var out []scouts.Suggestion
	after := ""
	for {
		page, err := s.cfg.Store.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: scoutID, Status: scouts.StatusPending, After: after, Limit: 1000})
		if err != nil {
			return out, err
		}
		for _, sg := range page {
			if !k.Covers(sg) {
				continue
			}
			got, err := s.settleOne(ctx, sg, c, actor)
			if err != nil {
				return out, fmt.Errorf("card %s: %w", sg.ID, err)
			}
			out = append(out, got)
		}
		if len(page) < 1000 {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

func (s *Screener) settleOne(ctx context.Context, sg scouts.Suggestion, c Choice, actor string) (scouts.Suggestion, error) {
	if c == Show {
		if sg.Lane == scouts.LaneInbox {
			return sg, nil
		}
		return s.cfg.Lanes.BringBack(ctx, sg.ID, actor)
	}
	if sg.Lane != scouts.LaneScreened {
		if _, err := s.cfg.Lanes.Screen(ctx, sg.ID, actor); err != nil {
			return sg, err
		}
	}
	return s.cfg.Lanes.Reject(ctx, sg.ID, actor)
}

// Covers reports whether a card comes from k: the same sender or list; a
// file in the folder or a folder within it.
func (k Key) Covers(sg scouts.Suggestion) bool {
	got, ok := KeyOf(sg)
	if !ok || got.Of != k.Of {
		return false
	}
	if k.Of == OfFolder {
		// As the rule's starts_with compares, ignoring case.
		return strings.HasPrefix(strings.ToLower(got.Value), strings.ToLower(k.Value))
	}
	return got.Value == k.Value
}
