package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runBrief is `scouts brief [--at HH:MM|off]`: the daily brief as of now,
// or a new time of day for it.
func runBrief(ctx context.Context, args []string, env Env) error {
	f := newFlags("brief", env, true)
	at := f.String("at", "", "send the daily brief at this local time of day (e.g. 08:30), or off")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("brief takes no arguments (--at HH:MM|off sets its time)")
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	if *at != "" {
		t, err := c.SetBriefTime(ctx, *at)
		if err != nil {
			return err
		}
		if t.At == "off" {
			fmt.Fprintln(env.Stdout, "The daily brief is off.")
		} else {
			fmt.Fprintf(env.Stdout, "The daily brief comes at %s (after the quiet hours if they hold that time).\n", t.At)
		}
		return nil
	}
	b, err := c.Brief(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, b)
	}
	printBrief(env.Stdout, b, env.program())
	return nil
}

func printBrief(w io.Writer, b apitype.Brief, program string) {
	fmt.Fprintf(w, "Daily brief — since %s\n\n", b.Since.In(time.Local).Format("Mon 2 Jan 15:04"))
	fmt.Fprintf(w, "Inbox: %d waiting, %d new\n", b.InboxCount, b.InboxNew)
	for i, s := range b.Inbox {
		if i == 10 {
			fmt.Fprintf(w, "  … and %d more\n", b.InboxCount-10)
			break
		}
		fmt.Fprintf(w, "  %s  %s\n", s.ID, s.Title)
	}
	for _, l := range []struct {
		name string
		list []apitype.Suggestion
	}{{"Screened", b.Screened}, {"Spam", b.Spam}} {
		fmt.Fprintf(w, "\n%s since the last brief: %d\n", l.name, len(l.list))
		for _, s := range l.list {
			fmt.Fprintf(w, "  %s  %s — %s bring-back %s\n", s.ID, s.Title, program, s.ID)
		}
	}
	fmt.Fprintf(w, "\nTasks due: %d\n", len(b.Tasks))
	for _, t := range b.Tasks {
		fmt.Fprintf(w, "  %s  %s (due %s)\n", t.ID, t.Title, dueText(t.Due))
	}
	fmt.Fprintf(w, "\nEvents today: %d\n", len(b.Events))
	for _, e := range b.Events {
		start := ""
		if e.StartsAt != nil {
			start = e.StartsAt.In(time.Local).Format("15:04") + " "
		}
		fmt.Fprintf(w, "  %s  %s%s\n", e.ID, start, e.Title)
	}
	if len(b.Alarms) > 0 {
		fmt.Fprintf(w, "\nAlarms open: %d\n", len(b.Alarms))
		for _, a := range b.Alarms {
			ack := ""
			if a.Status == "acknowledged" {
				ack = " (acknowledged)"
			}
			fmt.Fprintf(w, "  %s  %s: %s%s\n", a.ID, a.Severity, a.Message, ack)
		}
	}
	if b.BriefAt == "off" {
		fmt.Fprintln(w, "\nThe daily brief is off.")
	} else {
		fmt.Fprintf(w, "\nSent at %s each day when something is new.\n", b.BriefAt)
	}
}
