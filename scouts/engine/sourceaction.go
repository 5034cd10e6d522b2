package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
)

// CheckSourceAction checks an action a source proposes with an item (an AI
// agent's) before the item becomes a card, as approving would check it:
// that the catalogue has it and it applies to the scout's kind, its params
// against its schema, that this desktop can run it and its executor accepts
// the params, and that no policy denies it. It returns the params
// normalised ({} for none). A proposal that cannot run is refused now
// rather than becoming a card nobody can approve.
func (e *Engine) CheckSourceAction(ctx context.Context, sc scouts.Scout, action string, params json.RawMessage) (json.RawMessage, error) {
	d, ok := e.catalogue().Get(action)
	if !ok {
		return nil, scouts.Errorf(scouts.EInvalid, "unknown action %q (the catalogue lists the actions: GET /api/v1/actions)", action)
	}
	if actions.CreatedKind(action) != "" {
		return nil, scouts.Errorf(scouts.EInvalid, "%s is what approving the card does; propose the kind instead", action)
	}
	if !d.AppliesTo(string(sc.Kind)) {
		return nil, scouts.Errorf(scouts.EInvalid, "%s applies to %s cards only", action, strings.Join(d.Kinds, ", "))
	}
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage(`{}`)
	}
	if err := e.catalogue().Validate(action, params); err != nil {
		return nil, scouts.Errorf(scouts.EInvalid, "%s: %s", action, strings.TrimPrefix(err.Error(), actions.ErrInvalid.Error()+": "))
	}
	pol, err := e.cfg.Store.Policies(ctx)
	if err != nil {
		return nil, err
	}
	if res := pol.Resolve(d, sc.ID); res.Mode == actions.Deny {
		return nil, scouts.Errorf(scouts.EInvalid, "%s is denied by the %s policy", action, res.Source)
	}
	if d.Where == actions.Outbox {
		x := e.executor(action) // an MCP server's tool too (ExecutorFor)
		if x == nil {
			return nil, scouts.Errorf(scouts.EInvalid, "this desktop cannot run %s", action)
		}
		if err := x.Check(ctx, Invocation{Action: action, Params: params, Scout: sc}); err != nil {
			return nil, planError(1, action, err)
		}
	}
	return params, nil
}
