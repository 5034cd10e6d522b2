package screener

import (
	"context"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

// scoutFirsts is one scout's first card of each key, as far as its cards
// were read: last is the last card read, in the order cards were made.
type scoutFirsts struct {
	last  string
	first map[string]string // Key.String() → the id of its first card
}

// Offers returns, of the cards in list, those that offer the screener's
// keys, with what the keys apply to: the first card (decided or not) of
// its scout from a sender, list or folder, and a card waiting in Screened
// because its sender wrote again and again unanswered, of a sender that no
// screener rule of the scout names yet.
func (s *Screener) Offers(ctx context.Context, list []scouts.Suggestion) (map[string]Key, error) {
	out := map[string]Key{}
	byScout := map[string][]scouts.Suggestion{}
	for _, sg := range list {
		if _, ok := KeyOf(sg); ok {
			byScout[sg.ScoutID] = append(byScout[sg.ScoutID], sg)
		}
	}
	for scoutID, cards := range byScout {
		candidates, err := s.firstOnes(ctx, scoutID, cards)
		if err != nil {
			return nil, err
		}
		if len(candidates) == 0 {
			continue
		}
		views, err := s.cfg.Rules.List(ctx, scoutID)
		if err != nil {
			return nil, err
		}
		var named []Info
		for _, v := range views {
			if i, ok := ParseRuleID(v.Rule.ID); ok {
				named = append(named, i)
			}
		}
	cards:
		for _, sg := range candidates {
			k, _ := KeyOf(sg)
			for _, i := range named {
				if i.Is(k) {
					continue cards
				}
			}
			out[sg.ID] = k
		}
	}
	return out, nil
}

// firstOnes returns those of a scout's cards that are the first of their
// key, having read the cards made since it last looked (usually none, or
// the one being shown).
func (s *Screener) firstOnes(ctx context.Context, scoutID string, cards []scouts.Suggestion) ([]scouts.Suggestion, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.firsts[scoutID]
	if f == nil {
		f = &scoutFirsts{first: map[string]string{}}
		s.firsts[scoutID] = f
	}
	for {
		page, err := s.cfg.Store.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: scoutID, After: f.last, Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, sg := range page {
			if k, ok := KeyOf(sg); ok {
				if _, seen := f.first[k.String()]; !seen {
					f.first[k.String()] = sg.ID
				}
			}
		}
		if len(page) > 0 {
			f.last = page[len(page)-1].ID
		}
		if len(page) < 1000 {
			break
		}
	}
	var out []scouts.Suggestion
	for _, sg := range cards {
		// A card held because its sender kept writing unanswered
		// (engine.FamiliarAfter) asks the same question as a first card,
		// while it waits: once the person answered the sender, it is back
		// in the inbox and asks nothing.
		if k, _ := KeyOf(sg); f.first[k.String()] == sg.ID || sg.Assessment.Unanswered && sg.Lane == scouts.LaneScreened {
			out = append(out, sg)
		}
	}
	return out, nil
}
