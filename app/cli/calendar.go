package cli

import (
	"context"
	"fmt"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runCalendar is `scouts calendar [token|revoke]`: the calendar feed's
// state, a new token (the previous one stops working), or none.
func runCalendar(ctx context.Context, args []string, env Env) error {
	f := newFlags("calendar", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	var feed apitype.CalendarFeed
	switch {
	case len(pos) == 0:
		feed, err = c.CalendarFeed(ctx)
	case len(pos) == 1 && pos[0] == "token":
		feed, err = c.NewCalendarToken(ctx)
	case len(pos) == 1 && pos[0] == "revoke":
		feed, err = c.RevokeCalendarToken(ctx)
	default:
		return usageErrorf("want calendar, calendar token or calendar revoke")
	}
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, feed)
	}
	switch {
	case feed.Token != "":
		fmt.Fprintf(env.Stdout, "Calendar feed: http://127.0.0.1:PORT%s\n", feed.Path)
		fmt.Fprintln(env.Stdout, "PORT is the agent's --listen port. Subscribe to this address in your calendar app; any earlier feed address stops working. The token is shown only now.")
	case feed.Enabled:
		made := ""
		if feed.CreatedAt != nil {
			made = " (its token was made " + ago(*feed.CreatedAt) + ")"
		}
		fmt.Fprintf(env.Stdout, "The calendar feed is on%s; scouts calendar token makes a new one, scouts calendar revoke turns it off.\n", made)
	default:
		fmt.Fprintln(env.Stdout, "The calendar feed is off; scouts calendar token turns it on.")
	}
	return nil
}
