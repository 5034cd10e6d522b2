package localclient

import (
	"context"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Graph returns the graph of scouts: chain triggers and write→watch
// overlaps, loops marked.
func (c *Client) Graph(ctx context.Context) (apitype.Graph, error) {
	var out apitype.Graph
	return out, c.call(ctx, "GET", "/api/v1/graph", nil, &out)
}
