package localclient

import (
	"context"
	"net/url"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Actions lists the action catalogue.
func (c *Client) Actions(ctx context.Context) ([]apitype.ActionDef, error) {
	var out []apitype.ActionDef
	return out, c.call(ctx, "GET", "/api/v1/actions", nil, &out)
}

// Plan returns a card's plan; as is the kind the proposal is for ("" for
// the proposed kind).
func (c *Client) Plan(ctx context.Context, id, as string) (apitype.Plan, error) {
	p := "/api/v1/suggestions/" + url.PathEscape(id) + "/plan"
	if as != "" {
		p += "?as=" + url.QueryEscape(as)
	}
	var out apitype.Plan
	return out, c.call(ctx, "GET", p, nil, &out)
}

// FailingActions lists the failing actions of every card.
func (c *Client) FailingActions(ctx context.Context) ([]apitype.PlanAction, error) {
	var out []apitype.PlanAction
	return out, c.call(ctx, "GET", "/api/v1/actions/failing", nil, &out)
}

// RetryAction asks for another attempt of a card's failing action n.
func (c *Client) RetryAction(ctx context.Context, id string, n int) (apitype.PlanAction, error) {
	return c.actionChange(ctx, id, n, "retry")
}

// DropAction gives up on a card's queued or failed action n.
func (c *Client) DropAction(ctx context.Context, id string, n int) (apitype.PlanAction, error) {
	return c.actionChange(ctx, id, n, "drop")
}

func (c *Client) actionChange(ctx context.Context, id string, n int, what string) (apitype.PlanAction, error) {
	var out apitype.PlanAction
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/actions/"+strconv.Itoa(n)+"/"+what, struct{}{}, &out)
}

// Policies returns the modes; scoutID, when set, resolves them for that
// scout.
func (c *Client) Policies(ctx context.Context, scoutID string) (apitype.Policies, error) {
	p := "/api/v1/policies"
	if scoutID != "" {
		p += "?scout_id=" + url.QueryEscape(scoutID)
	}
	var out apitype.Policies
	return out, c.call(ctx, "GET", p, nil, &out)
}

// SetPolicies changes modes (and defaults); see apitype.PutPolicies.
func (c *Client) SetPolicies(ctx context.Context, in apitype.PutPolicies) (apitype.Policies, error) {
	var out apitype.Policies
	return out, c.call(ctx, "PUT", "/api/v1/policies", in, &out)
}
