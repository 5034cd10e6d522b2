package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// runSnooze is `scouts snooze ID WHEN...`: the card waits in the Snoozed
// lane until WHEN (words, the rest of the line, or an RFC 3339 time).
func runSnooze(ctx context.Context, args []string, env Env) error {
	f := newFlags("snooze", env, true)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usageErrorf(`want a suggestion or task ID and when, e.g. scouts snooze sg_123 "tomorrow morning"`)
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	if strings.HasPrefix(pos[0], "tk_") {
		t, err := c.SnoozeTask(ctx, pos[0], strings.Join(pos[1:], " "))
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, t)
		}
		fmt.Fprintf(env.Stdout, "Task snoozed until %s: %s %q\n", t.SnoozedUntil.In(time.Local).Format("Mon 2 Jan 15:04"), t.Task.ID, t.Task.Title)
		return nil
	}
	s, err := c.Snooze(ctx, pos[0], strings.Join(pos[1:], " "))
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, s)
	}
	until := ""
	if s.SnoozedUntil != nil {
		until = s.SnoozedUntil.In(time.Local).Format("Mon 2 Jan 15:04")
	}
	fmt.Fprintf(env.Stdout, "Snoozed until %s: %s %q\n", until, s.ID, s.Title)
	return nil
}

var unsnoozeAction = laneAction{name: "unsnooze", do: (*localclient.Client).Unsnooze,
	done: func(s apitype.Suggestion) string {
		return fmt.Sprintf("Unsnoozed, back in %s: %s %q", s.Lane, s.ID, s.Title)
	}}
