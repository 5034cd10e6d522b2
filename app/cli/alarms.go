package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runAlarms is `scouts alarms [--all]` (the live alarms, with the resolved
// ones kept when --all) and `scouts alarms ack ID`.
func runAlarms(ctx context.Context, args []string, env Env) error {
	f := newFlags("alarms", env, true)
	all := f.Bool("all", false, "also list the resolved alarms the agent keeps")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if pos[0] != "ack" || len(pos) != 2 {
			return usageErrorf("usage: scouts alarms [--all] | scouts alarms ack ID")
		}
		a, err := c.AckAlarm(ctx, pos[1])
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, a)
		}
		fmt.Fprintf(env.Stdout, "Acknowledged %s; it is resolved by itself once its cause goes away.\n", a.ID)
		return nil
	}
	list, err := c.Alarms(ctx, *all)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	printAlarms(env.Stdout, list, env.program())
	return nil
}

func printAlarms(w io.Writer, list []apitype.Alarm, program string) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No alarms: nothing is failing.")
		return
	}
	tw := table(w)
	fmt.Fprintln(tw, "ID\tSTATUS\tSEVERITY\tRAISED\tWHAT")
	open := 0
	for _, a := range list {
		if a.Status == "open" {
			open++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.ID, a.Status, a.Severity, ago(a.RaisedAt), a.Message)
	}
	tw.Flush()
	if open > 0 {
		fmt.Fprintf(w, "\n%s alarms ack ID acknowledges one you have seen.\n", program)
	}
}
