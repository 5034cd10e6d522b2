package localclient

import (
	"context"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Brief returns the daily brief as of now.
func (c *Client) Brief(ctx context.Context) (apitype.Brief, error) {
	var out apitype.Brief
	return out, c.call(ctx, "GET", "/api/v1/brief", nil, &out)
}

// SetBriefTime sets the daily brief's time of day ("08:30") or "off".
func (c *Client) SetBriefTime(ctx context.Context, at string) (apitype.BriefTime, error) {
	var out apitype.BriefTime
	return out, c.call(ctx, "PUT", "/api/v1/brief/time", apitype.BriefTime{At: at}, &out)
}
