package localclient

import (
	"context"
	"net/url"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Alarms lists the live alarms (open or acknowledged), and the resolved
// ones the agent keeps when all is true.
func (c *Client) Alarms(ctx context.Context, all bool) ([]apitype.Alarm, error) {
	path := "/api/v1/alarms"
	if all {
		path += "?all=1"
	}
	var out []apitype.Alarm
	return out, c.call(ctx, "GET", path, nil, &out)
}

// AckAlarm acknowledges an open alarm.
func (c *Client) AckAlarm(ctx context.Context, id string) (apitype.Alarm, error) {
	var out apitype.Alarm
	return out, c.call(ctx, "POST", "/api/v1/alarms/"+url.PathEscape(id)+"/ack", nil, &out)
}
