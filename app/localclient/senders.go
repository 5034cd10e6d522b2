package localclient

import (
	"context"
	"net/url"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Senders returns a scout's senders and lists, ranked (the Senders view).
func (c *Client) Senders(ctx context.Context, scoutID string) (apitype.SenderList, error) {
	var out apitype.SenderList
	return out, c.call(ctx, "GET", "/api/v1/scouts/"+url.PathEscape(scoutID)+"/senders", nil, &out)
}

// Unsubscribe unsubscribes from and screens a scout's senders, named by
// their keys ("sender:ADDRESS", "list:LIST-ID").
func (c *Client) Unsubscribe(ctx context.Context, scoutID string, keys []string) (apitype.UnsubscribeResult, error) {
	var out apitype.UnsubscribeResult
	return out, c.call(ctx, "POST", "/api/v1/scouts/"+url.PathEscape(scoutID)+"/senders/unsubscribe", apitype.UnsubscribeSenders{Senders: keys}, &out)
}
