package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runScreenSender is the screener's key: `scouts screen-sender ID
// --show|--screen`.
func runScreenSender(ctx context.Context, args []string, env Env) error {
	f := newFlags("screen-sender", env, true).changesScout()
	show := f.Bool("show", false, "always show this sender (its list, its folder): its cards go to the inbox")
	screen := f.Bool("screen", false, "always screen it: the cards waiting are rejected in Screened, later ones go there")
	id, c, err := f.oneArg(args, "suggestion ID")
	if err != nil {
		return err
	}
	if *show == *screen {
		return usageErrorf("want --show or --screen")
	}
	choice := "show"
	if *screen {
		choice = "screen"
	}
	res, err := c.ScreenSender(ctx, id, choice)
	if err != nil {
		return managedHint(err)
	}
	if f.json {
		return printJSON(env.Stdout, res)
	}
	out := env.Stdout
	verb := "Always shown"
	if res.Choice == "screen" {
		verb = "Always screened"
	}
	fmt.Fprintf(out, "%s: %s %s — rule %s, first in the scout's rules\n", verb, res.Of, res.Value, ruleIDOf(res.Rule))
	if res.Replaced != "" {
		fmt.Fprintf(out, "It replaces rule %s (the other choice).\n", res.Replaced)
	}
	for _, s := range res.Settled {
		where := s.Lane
		if s.Status != "pending" {
			where = s.Status + " in " + s.Lane
		}
		fmt.Fprintf(out, "  %s %q: %s\n", s.ID, s.Title, where)
	}
	fmt.Fprintf(out, "%d waiting card(s) settled. Remove the rule to let the learner judge again: %s rules rm SCOUT_ID %s\n",
		len(res.Settled), env.program(), ruleIDOf(res.Rule))
	return nil
}

// ruleIDOf reads a rule document's id.
func ruleIDOf(r apitype.Rule) string {
	var doc struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(r.Rule, &doc)
	return doc.ID
}
