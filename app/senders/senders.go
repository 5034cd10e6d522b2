// Package senders is the Senders view of a scout: its senders and mailing
// lists ranked by how much they send and how little of it the person
// wants, and "unsubscribe and screen" — gmail.unsubscribe through the
// outbox, and the screener's "always screen" rule, for one sender or
// several at once (docs/desktop.md, "Senders").
//
// Everything is computed from the scout's stored cards: a card keeps its
// sender, its list and which way its mail offered to unsubscribe (never
// the address, never the mail), so the view needs no store of its own.
package senders

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/app/screener"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// Store is what the view reads (localdb.DB).
type Store interface {
	ListSuggestions(ctx context.Context, f localdb.SuggestionFilter) ([]scouts.Suggestion, error)
	ActionRunsOf(ctx context.Context, scoutID, action string) ([]engine.ActionRun, error)
}

// Screener writes and lists the screener's rules (screener.Screener).
type Screener interface {
	Rules(ctx context.Context, scoutID string) ([]screener.Info, error)
	ApplyKey(ctx context.Context, scoutID string, k screener.Key, c screener.Choice, actor string) (screener.Result, error)
}

// Outbox queues an unsubscription (engine.Engine).
type Outbox interface {
	Unsubscribe(ctx context.Context, id, actor string) (engine.ActionRun, bool, error)
}

// Senders computes the view and applies "unsubscribe and screen". Its
// methods are safe for concurrent use.
type Senders struct {
	store    Store
	screener Screener
	outbox   Outbox
	// mu makes one unsubscription at a time: whether a sender was
	// unsubscribed from is read across its cards, then one is queued.
	mu sync.Mutex
}

// New returns the view over store, writing rules through sc and queueing
// through ob.
func New(store Store, sc Screener, ob Outbox) *Senders {
	return &Senders{store: store, screener: sc, outbox: ob}
}

// Sender is one sender (or mailing list) of a scout, as far as its cards
// tell.
type Sender struct {
	Key screener.Key
	// Name is how its newest card names the sender ("Shop <deals@…>").
	Name string
	// Cards counts its cards; Approved and Rejected those decided so
	// (spam is a rejection); Pending those waiting.
	Cards, Approved, Rejected, Pending int
	// LastCard is when its newest card came; LastApproval when the
	// person last approved one of its cards (zero: never).
	LastCard, LastApproval time.Time
	// Unsubscribe is the way its newest mail that offered one offered
	// to unsubscribe ("one-click", "mailto", "link"); "" when none is
	// known. UnsubscribeCard is the card whose mail an unsubscription
	// reads: that newest one, else the newest card.
	Unsubscribe     string
	UnsubscribeCard string
	// Screened is the screener's rule naming it, if any.
	Screened *screener.Info
	// Unsubscribed is its latest unsubscription, if it was asked for.
	Unsubscribed *engine.ActionRun
}

// ApproveRate is the share of its decided cards the person approved; -1
// when none is decided.
func (s Sender) ApproveRate() float64 {
	if n := s.Approved + s.Rejected; n > 0 {
		return float64(s.Approved) / float64(n)
	}
	return -1
}

// List returns a scout's senders and lists, ranked: the most cards
// first, then the lowest approve rate, then the longest since an
// approval. A folder's and a webhook's cards have no sender and are left
// out.
func (s *Senders) List(ctx context.Context, scoutID string) ([]Sender, error) {
	by := map[string]*Sender{}
	cardKey := map[string]string{} // card id → its sender's key, for the runs
	after := ""
	for {
		page, err := s.store.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: scoutID, After: after, Limit: 1000})
		if err != nil {
			return nil, fmt.Errorf("senders: read the cards of %s: %w", scoutID, err)
		}
		for _, sg := range page {
			if k, ok := add(by, sg); ok {
				cardKey[sg.ID] = k
			}
		}
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].ID
	}
	rules, err := s.screener.Rules(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	runs, err := s.store.ActionRunsOf(ctx, scoutID, actions.GmailUnsubscribe)
	if err != nil {
		return nil, err
	}
	for i := range runs { // oldest first: the latest stays
		if snd := by[cardKey[runs[i].SuggestionID]]; snd != nil {
			snd.Unsubscribed = &runs[i]
		}
	}
	out := make([]Sender, 0, len(by))
	for _, snd := range by {
		for i := range rules {
			if rules[i].Is(snd.Key) {
				snd.Screened = &rules[i]
			}
		}
		out = append(out, *snd)
	}
	slices.SortFunc(out, func(a, b Sender) int {
		if c := cmp.Compare(b.Cards, a.Cards); c != 0 {
			return c
		}
		if c := cmp.Compare(rankRate(a), rankRate(b)); c != 0 {
			return c
		}
		if c := a.LastApproval.Compare(b.LastApproval); c != 0 {
			return c
		}
		return cmp.Compare(a.Key.String(), b.Key.String())
	})
	return out, nil
}

// rankRate is the approve rate as the ranking reads it: a sender none of
// whose cards is decided yet comes after every rate, not before the
// senders the person keeps rejecting.
func rankRate(s Sender) float64 {
	if r := s.ApproveRate(); r >= 0 {
		return r
	}
	return 2
}

// add counts one card for its sender and returns the sender's key; ok
// is false for a card without one.
func add(by map[string]*Sender, sg scouts.Suggestion) (string, bool) {
	k, ok := screener.KeyOf(sg)
	if !ok || k.Of == screener.OfFolder {
		return "", false
	}
	snd := by[k.String()]
	if snd == nil {
		snd = &Sender{Key: k}
		by[k.String()] = snd
	}
	snd.Cards++
	switch sg.Status {
	case scouts.StatusApproved:
		snd.Approved++
		if sg.ResolvedAt.After(snd.LastApproval) {
			snd.LastApproval = sg.ResolvedAt
		}
	case scouts.StatusRejected:
		snd.Rejected++
	case scouts.StatusPending:
		snd.Pending++
	}
	// Cards are read oldest first: the newest one names the sender.
	if !sg.CreatedAt.Before(snd.LastCard) {
		snd.LastCard, snd.Name = sg.CreatedAt, sg.Sender
		if snd.Unsubscribe == "" {
			snd.UnsubscribeCard = sg.ID
		}
	}
	if sg.Assessment.Unsubscribe != "" {
		snd.Unsubscribe, snd.UnsubscribeCard = sg.Assessment.Unsubscribe, sg.ID
	}
	return k.String(), true
}
