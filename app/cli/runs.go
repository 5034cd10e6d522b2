package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/scouts-hq/scouts/app/apitype"
)

// runSecrets: scouts secrets [list] | set NAME | rm NAME. A value is read
// from standard input (without echo on a terminal), never from the
// command line, where other users and the shell's history would see it.
func runSecrets(ctx context.Context, args []string, env Env) error {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	f := newFlags("secrets "+sub, env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	switch sub {
	case "list", "ls":
		if len(pos) != 0 {
			return usageErrorf("secrets list takes no argument")
		}
		names, err := c.Secrets(ctx)
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, apitype.Secrets{Names: names})
		}
		if len(names) == 0 {
			fmt.Fprintf(env.Stdout, "No secrets. Add one with: %s secrets set NAME (the value is read from standard input)\n", env.program())
			return nil
		}
		for _, n := range names {
			fmt.Fprintln(env.Stdout, n)
		}
		return nil
	case "set":
		if len(pos) != 1 {
			return usageErrorf("usage: secrets set NAME   (the value is read from standard input, never from the command line)")
		}
		v, err := readSecret(env, pos[0])
		if err != nil {
			return err
		}
		if err := c.SetSecret(ctx, pos[0], v); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Secret %s is in the OS keyring. Definitions refer to it as {\"secret\": %q}.\n", pos[0], pos[0])
		return nil
	case "rm", "delete":
		if len(pos) != 1 {
			return usageErrorf("usage: secrets rm NAME")
		}
		if err := c.DeleteSecret(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Secret %s removed.\n", pos[0])
		return nil
	}
	return usageErrorf("unknown subcommand %q (want list, set or rm)", sub)
}

// readSecret reads a secret's value: on a terminal one line typed without
// echo; otherwise all of standard input, less one final line break.
func readSecret(env Env, name string) (string, error) {
	in := env.Stdin
	if in == nil {
		in = os.Stdin
	}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(env.Stderr, "Value of %s (not shown): ", name)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return "", fmt.Errorf("read the value: %w", err)
		}
		return string(b), nil
	}
	b, err := io.ReadAll(io.LimitReader(in, 64<<10+1))
	if err != nil {
		return "", fmt.Errorf("read the value from standard input: %w", err)
	}
	if len(b) > 64<<10 {
		return "", usageErrorf("the value on standard input is larger than 64 KiB")
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", usageErrorf("no value on standard input (pipe it in: … | %s secrets set %s)", env.program(), name)
	}
	return v, nil
}

// runRevive: scouts revive ID brings an expired suggestion back to pending.
func runRevive(ctx context.Context, args []string, env Env) error {
	f := newFlags("revive", env, true)
	id, c, err := f.oneArg(args, "suggestion ID")
	if err != nil {
		return err
	}
	s, err := c.Revive(ctx, id)
	if err != nil {
		return withID([]string{id}, id, err)
	}
	if f.json {
		return printJSON(env.Stdout, s)
	}
	fmt.Fprintf(env.Stdout, "Brought back: %s %q is pending again (in %s) until %s.\n", s.ID, s.Title, s.Lane,
		s.ExpiresAt.Local().Format("2006-01-02 15:04"))
	return nil
}

// scheduleScout: scouts schedule ID [--cron EXPR] [--tz ZONE] [--overlap P]
// [--catch-up P] | --clear, and scouts budget ID [--run N] [--day N].
func scheduleScout(ctx context.Context, args []string, env Env) error {
	f := newFlags("scouts schedule", env, true).changesScout()
	cron := f.String("cron", "", `cron expression: five fields ("*/15 * * * *") or @hourly, @daily, @every 10m`)
	tz := f.String("tz", "", "IANA time zone the expression is read in (default: this machine's)")
	overlap := f.String("overlap", "", "skip, queue-one or allow: what a trigger does during a run")
	catchUp := f.String("catch-up", "", "run-once or skip: what a run missed while the agent was off does")
	clear := f.Bool("clear", false, "remove the schedule (the scout runs when its source says so, or every poll interval)")
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	sc, err := c.Scout(ctx, id)
	if err != nil {
		return err
	}
	sched := sc.Schedule
	if *clear {
		sched = apitype.Schedule{}
	}
	changed := *clear
	f.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "cron":
			sched.Cron, changed = *cron, true
		case "tz":
			sched.TimeZone, changed = *tz, true
		case "overlap":
			sched.Overlap, changed = *overlap, true
		case "catch-up":
			sched.CatchUp, changed = *catchUp, true
		}
	})
	// Without a change it only reads, which a scout a definitions file
	// manages allows like any other.
	out := sc
	if changed {
		if out, err = c.PatchScout(ctx, id, apitype.PatchScout{Schedule: &sched}); err != nil {
			return err
		}
	}
	if f.json {
		return printJSON(env.Stdout, out)
	}
	fmt.Fprintf(env.Stdout, "%s: %s\n", out.Name, scheduleText(out))
	return nil
}

func budgetScout(ctx context.Context, args []string, env Env) error {
	f := newFlags("scouts budget", env, true).changesScout()
	run := f.Int("run", 0, "model tokens one run may spend (0: no cap per run)")
	day := f.Int("day", 0, "model tokens a UTC day may spend (0: the agent's global cap)")
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	sc, err := c.Scout(ctx, id)
	if err != nil {
		return err
	}
	// Only the flags given change the budget; a negative one goes to the
	// agent, which says why it is refused.
	b := sc.Budget
	changed := false
	f.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "run":
			b.RunTokens, changed = *run, true
		case "day":
			b.DayTokens, changed = *day, true
		}
	})
	out := sc
	if changed {
		if out, err = c.PatchScout(ctx, id, apitype.PatchScout{Budget: &b}); err != nil {
			return err
		}
	}
	if f.json {
		return printJSON(env.Stdout, out)
	}
	fmt.Fprintf(env.Stdout, "%s: %s\n", out.Name, budgetText(out))
	return nil
}

func scheduleText(s apitype.Scout) string {
	sc := s.Schedule
	var b strings.Builder
	if sc.Cron == "" {
		b.WriteString("no schedule of its own (runs when its source says so, or every poll interval)")
	} else {
		b.WriteString("runs on " + sc.Cron)
		if sc.TimeZone != "" {
			b.WriteString(" (" + sc.TimeZone + ")")
		}
		if s.Health.NextRunAt != nil {
			b.WriteString(", next " + s.Health.NextRunAt.Local().Format("2006-01-02 15:04"))
		}
		b.WriteString("; catch-up " + orDefault(sc.CatchUp, "run-once"))
	}
	b.WriteString("; overlap " + orDefault(sc.Overlap, "queue-one"))
	return b.String()
}

func budgetText(s apitype.Scout) string {
	tokens := func(n int, none string) string {
		if n == 0 {
			return none
		}
		return strconv.Itoa(n) + " tokens"
	}
	day := "the agent's daily cap (--llm-daily-tokens)"
	if s.Budget.DayTokens > 0 {
		day = tokens(s.Budget.DayTokens, "") + " a day"
	}
	out := "model budget: " + day + ", " + tokens(s.Budget.RunTokens, "no cap") + " per run"
	if mb := s.Health.ModelBudget; mb != nil {
		out += fmt.Sprintf("; %d of %d spent today", mb.SpentToday, mb.DayCap)
		if mb.Message != "" {
			out += " — " + mb.Message
		}
	}
	return out
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// statusRuns adds the status lines of expired suggestions and spent model
// budgets.
func statusRuns(w io.Writer, st apitype.Status, env Env) {
	if n := st.Suggestions["expired"]; n > 0 {
		fmt.Fprintf(w, "Expired\t%s (see why: %s suggestions --status expired; bring one back: %s revive ID)\n",
			plural(n, "suggestion"), env.program(), env.program())
	}
	for _, b := range st.ModelBudget {
		fmt.Fprintf(w, "Budget\t%s: %s (resets %s)\n", b.ScoutName, b.Message, b.ResetsAt.Local().Format(time.DateTime))
	}
}

// expiredRow is a listed expired suggestion with why it expired.
func expiredRows(w io.Writer, list []apitype.Suggestion) {
	fmt.Fprintln(w, "ID\tAGE\tKIND\tTITLE\tWHY IT EXPIRED")
	for _, s := range list {
		why := s.ExpiredReason
		if why == "" {
			why = "expired " + ago(s.ExpiresAt)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.ID, ago(s.CreatedAt), s.ProposedKind, clipText(s.Title, 40), clipText(why, 80))
	}
}
