package core

import (
	"context"

	"github.com/scouts-hq/scouts/scouts"
)

// EventSuggestionRevived is published when an expired suggestion is
// brought back to pending.
const EventSuggestionRevived = "suggestion.revived"

// Revive brings an expired suggestion back to pending with a fresh
// deadline (the expiry from now), audited with who did it.
func (c *Core) Revive(ctx context.Context, id, actor string) (scouts.Suggestion, error) {
	now := c.now()
	expiry := c.cfg.Expiry
	if expiry <= 0 {
		expiry = scouts.DefaultExpiry
	}
	s, err := c.DB.ReviveSuggestion(ctx, id, actor, now, now.Add(expiry))
	if err != nil {
		return s, err
	}
	c.Bus.Publish(scouts.Event{Type: EventSuggestionRevived, Data: s})
	return s, nil
}

// ExpiryReasons says why each expired suggestion expired, by suggestion
// id, from its audit trail.
func (c *Core) ExpiryReasons(ctx context.Context, list []scouts.Suggestion) (map[string]string, error) {
	var traces []string
	for _, s := range list {
		if s.Status == scouts.StatusExpired {
			traces = append(traces, s.TraceID)
		}
	}
	if len(traces) == 0 {
		return nil, nil
	}
	byTrace, err := c.DB.ExpiryReasons(ctx, traces)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(traces))
	for _, s := range list {
		if r, ok := byTrace[s.TraceID]; ok {
			out[s.ID] = r
		}
	}
	return out, nil
}
