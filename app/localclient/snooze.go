package localclient

import (
	"context"
	"net/url"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Snooze puts a pending card in the Snoozed lane until when: words ("in 3
// hours", "tomorrow morning", "next week") or an RFC 3339 time.
func (c *Client) Snooze(ctx context.Context, id, when string) (apitype.Suggestion, error) {
	var out apitype.Suggestion
	return out, c.call(ctx, "POST", "/api/v1/suggestions/"+url.PathEscape(id)+"/snooze", apitype.Snooze{Until: when}, &out)
}

// Unsnooze takes a snoozed card back to the lane it was snoozed from.
func (c *Client) Unsnooze(ctx context.Context, id string) (apitype.Suggestion, error) {
	return c.suggestionAction(ctx, id, "unsnooze")
}

// SnoozeTask leaves an open task out of the lists of tasks until when.
func (c *Client) SnoozeTask(ctx context.Context, id, when string) (apitype.SnoozedTask, error) {
	var out apitype.SnoozedTask
	return out, c.call(ctx, "POST", "/api/v1/tasks/"+url.PathEscape(id)+"/snooze", apitype.Snooze{Until: when}, &out)
}
