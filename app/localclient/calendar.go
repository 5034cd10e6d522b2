package localclient

import (
	"context"

	"github.com/scouts-hq/scouts/app/apitype"
)

// CalendarFeed returns the calendar feed's state.
func (c *Client) CalendarFeed(ctx context.Context) (apitype.CalendarFeed, error) {
	var out apitype.CalendarFeed
	return out, c.call(ctx, "GET", "/api/v1/calendar", nil, &out)
}

// NewCalendarToken makes a new feed token; the previous one stops working.
func (c *Client) NewCalendarToken(ctx context.Context) (apitype.CalendarFeed, error) {
	var out apitype.CalendarFeed
	return out, c.call(ctx, "POST", "/api/v1/calendar/token", nil, &out)
}

// RevokeCalendarToken turns the feed off.
func (c *Client) RevokeCalendarToken(ctx context.Context) (apitype.CalendarFeed, error) {
	var out apitype.CalendarFeed
	return out, c.call(ctx, "DELETE", "/api/v1/calendar/token", nil, &out)
}
