package localclient

import (
	"context"
	"net/url"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Search asks the agent for what q finds (GET /api/v1/search); limit 0
// takes the agent's default.
func (c *Client) Search(ctx context.Context, q string, limit int) (apitype.SearchResults, error) {
	p := "/api/v1/search?q=" + url.QueryEscape(q)
	if limit > 0 {
		p += "&limit=" + strconv.Itoa(limit)
	}
	var out apitype.SearchResults
	return out, c.call(ctx, "GET", p, nil, &out)
}
