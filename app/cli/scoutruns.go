package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/scouts-hq/scouts/app/apitype"
)

// scoutRuns: scouts runs ID [--limit N] — a scout's latest runs, newest
// first, each with what started it, what it found and the definition
// version it ran (docs/schedules.md, "Runs").
func scoutRuns(ctx context.Context, args []string, env Env) error {
	f := newFlags("scouts runs", env, true)
	limit := f.Int("limit", 20, "how many runs to show, newest first (at most 200 are kept)")
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	if *limit < 1 {
		return usageErrorf("--limit must be a positive number, not %d", *limit)
	}
	runs, err := c.ScoutRuns(ctx, id, *limit)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, runs)
	}
	if len(runs) == 0 {
		fmt.Fprintf(env.Stdout, "No runs yet. Run it now with: %s scouts run %s\n", env.program(), id)
		return nil
	}
	w := table(env.Stdout)
	fmt.Fprintln(w, "STARTED\tTRIGGER\tOUTCOME\tSEEN\tNEW\tTOKENS\tVERSION\tDETAIL")
	for _, r := range runs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", r.StartedAt.Local().Format("2006-01-02 15:04:05"), r.Trigger, r.Outcome,
			r.ItemsSeen, r.ItemsNew, runTokens(r), runVersion(r), clipText(runDetail(r), 80))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "See a version with: %s history %s\n", env.program(), id)
	return nil
}

func runTokens(r apitype.Run) string {
	if r.ModelTokens == nil {
		return "-"
	}
	return strconv.Itoa(*r.ModelTokens)
}

func runVersion(r apitype.Run) string {
	if r.DefinitionVersion == 0 {
		return "-"
	}
	return strconv.Itoa(r.DefinitionVersion)
}

func runDetail(r apitype.Run) string {
	if r.Error != "" {
		return r.Error
	}
	return r.Note
}
