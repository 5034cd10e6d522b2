package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runSearch is `scouts search QUERY…`: the words (and filters) are one
// query, as typed in the window's search box.
func runSearch(ctx context.Context, args []string, env Env) error {
	f := newFlags("search", env, true)
	limit := f.Int("limit", 0, "at most this many results (default 50, at most 200)")
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErrorf("want a QUERY: words, and filters from:, kind:, lane:, scout:, before:, after:, is: (put -- before a query that starts with -)")
	}
	res, err := c.Search(ctx, strings.Join(pos, " "), *limit)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, res)
	}
	if len(res.Results) == 0 {
		fmt.Fprintf(env.Stdout, "Nothing found for %s.\n", res.Query)
		return nil
	}
	w := table(env.Stdout)
	fmt.Fprintln(w, "TYPE\tID\tWHEN\tTITLE\tWHERE\tMATCH")
	for _, h := range res.Results {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", h.Type, h.ID, dayOrTime(h.At), clipText(h.Title, 50), searchWhere(h), clipText(h.Snippet, 50))
	}
	return w.Flush()
}

// searchWhere says where a hit is: a card's scout, lane and status, a
// done task or project, an entity's scout.
func searchWhere(h apitype.SearchHit) string {
	var parts []string
	if h.Scout != "" {
		parts = append(parts, h.Scout)
	}
	if h.Type == "card" {
		parts = append(parts, h.Lane, h.Status)
	} else if h.Done {
		parts = append(parts, "done")
	}
	return strings.Join(parts, " · ")
}
