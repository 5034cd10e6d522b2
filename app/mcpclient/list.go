package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTools bounds the tools read from one server: a server listing more
// is refused rather than read without end.
const maxTools = 500

// ListDefinitions reads every tool the session's server lists (all
// pages) as definitions.
func ListDefinitions(ctx context.Context, cs *mcp.ClientSession) ([]Definition, error) {
	var out []Definition
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if len(out) == maxTools {
			return nil, fmt.Errorf("tools/list: more than %d tools", maxTools)
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		var rt RawTool
		if err := json.Unmarshal(raw, &rt); err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		d, err := Define(rt)
		if err != nil {
			return nil, err
		}
		if seen[d.Name] {
			// Two tools by one name: which one a call reaches is the
			// server's choice, so neither can be pinned.
			return nil, fmt.Errorf("tools/list: the tool %q is listed twice", d.Name)
		}
		seen[d.Name] = true
		out = append(out, d)
	}
	return out, nil
}
