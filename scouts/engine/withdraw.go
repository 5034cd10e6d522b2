package engine

import (
	"context"
	"fmt"

	"github.com/scouts-hq/scouts/scouts"
)

// withdraw withdraws the pending cards of items their source says no
// longer call for one (ItemRef.Withdraw): each is expired with the
// source's reason on its trail, visible among the expired cards, never
// silently gone. A card already decided, or never made, is left as it is,
// so the same news told twice changes nothing.
func (e *Engine) withdraw(ctx context.Context, s scouts.Scout, items []scouts.ItemRef) error {
	for _, it := range items {
		sug, err := e.cfg.Store.SuggestionByRef(ctx, s.ID, it.Ref)
		if scouts.ErrorCode(err) == scouts.ENotFound {
			continue
		}
		if err != nil {
			return fmt.Errorf("engine: withdraw %s: %w", it.Ref, err)
		}
		if sug.Status != scouts.StatusPending {
			continue
		}
		got, changed, err := e.cfg.Store.ExpireSuggestion(ctx, sug.ID, e.cfg.Now(), "scout", it.Withdraw)
		if err != nil {
			return fmt.Errorf("engine: withdraw %s: %w", it.Ref, err)
		}
		if changed {
			e.emit(scouts.Event{Type: scouts.EventSuggestionResolved, Data: got})
		}
	}
	return nil
}
