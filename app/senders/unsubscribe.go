package senders

import (
	"context"
	"strings"

	"github.com/scouts-hq/scouts/app/screener"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// ParseKey reads a sender's key as the view names it: "sender:ADDRESS" or
// "list:LIST-ID" (screener.Key.String).
func ParseKey(s string) (screener.Key, error) {
	of, v, ok := strings.Cut(strings.TrimSpace(s), ":")
	v = strings.ToLower(strings.TrimSpace(v))
	if !ok || v == "" || (screener.Of(of) != screener.OfSender && screener.Of(of) != screener.OfList) {
		return screener.Key{}, scouts.Errorf(scouts.EInvalid, "sender %q: want sender:ADDRESS or list:LIST-ID", s)
	}
	return screener.Key{Of: screener.Of(of), Value: v}, nil
}

// Outcome is what "unsubscribe and screen" did for one sender.
type Outcome struct {
	Sender Sender
	// Run is its unsubscription: queued now (Queued), or asked before and
	// queued, running or done (unsubscribing twice unsubscribes once);
	// nil when its mail offered no way to (Note says so).
	Run    *engine.ActionRun
	Queued bool
	// Screen is the screener rule written for it; nil when one screened
	// it already (AlreadyScreened).
	Screen          *screener.Result
	AlreadyScreened bool
	Note            string
}

// Unsubscribe is "unsubscribe and screen" for each of keys, senders of
// the scout, in order: gmail.unsubscribe queued in the outbox on the
// sender's card whose mail offered a way (once per sender), then the
// screener's "always screen" rule, which settles its waiting cards and
// screens its next mail. A key that is none of the scout's senders
// refuses the whole request before anything is done (ENotFound); so does
// a policy denying gmail.unsubscribe, or a desktop that cannot reach
// Gmail (EConflict, from the first sender on).
func (s *Senders) Unsubscribe(ctx context.Context, scoutID string, keys []screener.Key, actor string) ([]Outcome, error) {
	if len(keys) == 0 {
		return nil, scouts.Errorf(scouts.EInvalid, "no sender to unsubscribe from")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.List(ctx, scoutID)
	if err != nil {
		return nil, err
	}
	byKey := map[string]Sender{}
	for _, snd := range list {
		byKey[snd.Key.String()] = snd
	}
	var todo []Sender
	seen := map[string]bool{}
	for _, k := range keys {
		snd, ok := byKey[k.String()]
		if !ok {
			return nil, scouts.Errorf(scouts.ENotFound, "scout %s has no card from %s", scoutID, k)
		}
		if !seen[k.String()] {
			seen[k.String()] = true
			todo = append(todo, snd)
		}
	}
	out := make([]Outcome, 0, len(todo))
	for _, snd := range todo {
		o, err := s.unsubscribeOne(ctx, scoutID, snd, actor)
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
	return out, nil
}

func (s *Senders) unsubscribeOne(ctx context.Context, scoutID string, snd Sender, actor string) (Outcome, error) {
	o := Outcome{Sender: snd}
	switch r := snd.Unsubscribed; {
	case r != nil && (r.State == engine.ActionQueued || r.State == engine.ActionRunning || r.State == engine.ActionDone):
		o.Run = r
	case snd.Unsubscribe == "":
		o.Note = "its mail offers no way to unsubscribe (no List-Unsubscribe header seen): screened only"
	default:
		run, queued, err := s.outbox.Unsubscribe(ctx, snd.UnsubscribeCard, actor)
		if err != nil {
			return o, err
		}
		o.Run, o.Queued = &run, queued
	}
	if snd.Screened != nil && snd.Screened.Choice == screener.Screen {
		o.AlreadyScreened = true
		return o, nil
	}
	res, err := s.screener.ApplyKey(ctx, scoutID, snd.Key, screener.Screen, actor)
	if err != nil {
		return o, err
	}
	o.Screen = &res
	return o, nil
}
