package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) }

// ago renders a time as a short age ("3m", "2h", "5d").
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func runStatus(ctx context.Context, args []string, env Env) error {
	f := newFlags("status", env, true)
	_, c, err := f.start(args)
	if err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, st)
	}
	w := table(env.Stdout)
	fmt.Fprintf(w, "Agent\t%s, up %s\n", st.Version, ago(st.StartedAt))
	fmt.Fprintf(w, "Data\t%s\n", st.DataDir)
	list, err := c.Scouts(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Scouts\t%s\n", scoutsHealth(list, st.Paused))
	fmt.Fprintf(w, "Pending\t%s in the inbox · %d screened · %d spam\n", plural(st.Pending, "suggestion"),
		st.Lanes["screened"], st.Lanes["spam"])
	fmt.Fprintf(w, "Entities\t%s, %s, %s, %s\n", plural(st.Entities["task"], "task"), plural(st.Entities["note"], "note"),
		plural(st.Entities["event"], "event"), plural(st.Entities["project"], "project"))
	statusRuns(w, st, env)
	definitionsStatus(ctx, w, c)
	if st.FailingActions > 0 {
		fmt.Fprintf(w, "Failing	%s (see each card: scouts plan ID; retry or drop with scouts action)\n", plural(st.FailingActions, "action"))
	}
	return w.Flush()
}

func runScouts(ctx context.Context, args []string, env Env) error {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "list", "ls":
		return listScouts(ctx, args, env)
	case "add-folder", "add":
		return addFolder(ctx, args, env)
	case "enable", "disable", "review", "auto", "run", "rm", "delete":
		return changeScout(ctx, sub, args, env)
	case "rules":
		return runRules(ctx, args, env)
	case "schedule":
		return scheduleScout(ctx, args, env)
	case "budget":
		return budgetScout(ctx, args, env)
	case "runs":
		return scoutRuns(ctx, args, env)
	case "edit":
		return editInWords(ctx, args, env)
	}
	return usageErrorf("unknown subcommand %q (want list, add-folder, enable, disable, review, auto, run, runs, rm, rules, schedule, budget or edit)", sub)
}

func listScouts(ctx context.Context, args []string, env Env) error {
	f := newFlags("scouts", env, true)
	_, c, err := f.start(args)
	if err != nil {
		return err
	}
	list, err := c.Scouts(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(env.Stdout, "No scouts. Add one with: %s scouts add-folder PATH\n", env.program())
		return nil
	}
	managed := managedBy(ctx, c)
	w := table(env.Stdout)
	fmt.Fprintln(w, "ID\tNAME\tKIND\tMODE\tHEALTH\tFOUND\tWATCHES")
	for _, s := range list {
		if file, ok := managed[s.ID]; ok {
			s.Path = strings.TrimSpace(s.Path + " (managed by " + strings.TrimPrefix(file, "file:") + ")")
		}
		mode := "review"
		if !s.Review {
			mode = "auto"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", s.ID, s.Name, s.Kind, mode, healthText(s), s.Health.TotalNew, s.Path)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, s := range list {
		if s.Health.Watch != "" {
			fmt.Fprintf(env.Stdout, "%s (%s) is not watched live: %s.\n", s.Name, s.ID, s.Health.Watch)
		}
	}
	return nil
}

// healthText is a scout's HEALTH column: its state, then its last error or
// that its folder is not watched live (said in full below the table).
func healthText(s apitype.Scout) string {
	health := s.Health.State
	switch {
	case s.Health.LastError != "":
		health += ": " + clipText(s.Health.LastError, 60)
	case s.Health.Watch != "":
		health += ", not watched live (below)"
	}
	return health
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func addFolder(ctx context.Context, args []string, env Env) error {
	f := newFlags("scouts add-folder", env, true)
	auto := f.Bool("auto", false, "create entities directly instead of suggesting them for review")
	name := f.String("name", "", "scout name (default: the folder's name)")
	existing := f.Bool("existing", false, "also suggest the files already in the folder")
	force := f.Bool("force", false, "watch a folder of more than 100,000 files all the same")
	create := f.Bool("create", false, "create the folder if it does not exist")
	var include, exclude multiFlag
	f.Var(&include, "include", "only files matching this glob (repeatable; e.g. '*.md', 'docs/**/*.txt')")
	f.Var(&exclude, "exclude", "skip files matching this glob (repeatable)")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("want exactly one PATH")
	}
	path, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	said := env.Stdout
	if f.json {
		said = env.Stderr
	}
	if err := ensureFolder(path, *create, env, said); err != nil {
		return err
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	review := !*auto
	s, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: *name, Path: path, Review: &review,
		Include: include, Exclude: exclude, IncludeExisting: *existing, Force: *force})
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, s)
	}
	mode := "suggestions wait for your review"
	if !review {
		mode = "entities are created directly"
	}
	fmt.Fprintf(env.Stdout, "Added scout %s watching %s (%s)\n", s.ID, s.Path, mode)
	for _, w := range s.Warnings {
		fmt.Fprintf(env.Stdout, "Warning: %s\n", w)
	}
	return nil
}

func changeScout(ctx context.Context, sub string, args []string, env Env) error {
	f := newFlags("scouts "+sub, env, true)
	switch sub {
	case "enable", "disable", "review", "auto":
		f.changesScout()
	}
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	t, fl := true, false
	var p apitype.PatchScout
	switch sub {
	case "enable":
		p.Enabled = &t
	case "disable":
		p.Enabled = &fl
	case "review":
		p.Review = &t
	case "auto":
		p.Review = &fl
	case "run":
		if err := c.RunScout(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Scout %s is looking for new items\n", id)
		return nil
	case "rm", "delete":
		if err := c.DeleteScout(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Deleted scout %s (entities it produced are kept)\n", id)
		return nil
	}
	s, err := c.PatchScout(ctx, id, p)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, s)
	}
	fmt.Fprintf(env.Stdout, "Scout %s: enabled=%t review=%t\n", s.ID, s.Enabled, s.Review)
	return nil
}

func runSuggestions(ctx context.Context, args []string, env Env) error {
	f := newFlags("suggestions", env, true)
	status := f.String("status", "pending", "pending, approved, rejected, expired or all")
	lane := f.String("lane", "", "inbox, screened, spam or all (default: inbox for pending suggestions, else all)")
	scout := f.String("scout", "", "only this scout's suggestions")
	limit := f.Int("limit", 100, "at most this many")
	_, c, err := f.start(args)
	if err != nil {
		return err
	}
	q := localclient.SuggestionQuery{Status: *status, Lane: *lane, ScoutID: *scout, Limit: *limit}
	if *status == "pending" {
		// The queue as the window shows it: what the person most likely
		// acts on first.
		q.Order = "likely"
		if q.Lane == "" {
			q.Lane = "inbox"
		}
	}
	list, err := c.Suggestions(ctx, q)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	below := q.Lane == "screened" || q.Lane == "spam"
	if len(list) == 0 {
		what := strings.TrimSpace(strings.ReplaceAll(*status, "all", "") + " suggestions")
		if q.Lane != "" && q.Lane != "all" {
			what += " in " + q.Lane
		}
		fmt.Fprintf(env.Stdout, "No %s.\n", what)
		return nil
	}
	w := table(env.Stdout)
	if *status == "expired" {
		expiredRows(w, list)
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "\nBring one back to pending with: %s revive ID\n", env.program())
		return nil
	}
	if below {
		fmt.Fprintln(w, "ID\tAGE\tKIND\tTITLE\tWHY HERE")
	} else {
		fmt.Fprintln(w, "ID\tAGE\tKIND\tSTATUS\tTITLE\tEXCERPT")
	}
	for _, s := range list {
		if below {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.ID, ago(s.CreatedAt), s.ProposedKind, clipText(s.Title, 40), clipText(laneReason(s), 70))
			continue
		}
		status := s.Status
		if s.Lane != "" && s.Lane != "inbox" {
			status += " (" + s.Lane + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, ago(s.CreatedAt), s.ProposedKind, status,
			clipText(s.Title, 40), clipText(s.Excerpt, 50))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	switch {
	case *status == "pending" && below:
		fmt.Fprintf(env.Stdout, "\nBring one back to the inbox with: %s bring-back ID\n", env.program())
	case *status == "pending":
		fmt.Fprintf(env.Stdout, "\nApprove with: %[1]s approve ID --as task|note|event|project   Reject with: %[1]s reject ID   Spam: %[1]s spam ID\n", env.program())
	}
	return nil
}

func runShow(ctx context.Context, args []string, env Env) error {
	f := newFlags("show", env, true)
	id, c, err := f.oneArg(args, "suggestion ID")
	if err != nil {
		return err
	}
	s, err := c.Suggestion(ctx, id)
	if err != nil {
		return err
	}
	trail, err := c.Audit(ctx, s.TraceID)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, map[string]any{"suggestion": s, "audit": trail})
	}
	out := env.Stdout
	fmt.Fprintf(out, "%s  [%s, proposed as %s]\n", s.Title, s.Status, s.ProposedKind)
	if s.Path != "" {
		fmt.Fprintf(out, "  path:    %s\n", s.Path)
	}
	if s.Sender != "" {
		fmt.Fprintf(out, "  from:    %s\n", s.Sender)
	}
	if s.Excerpt != "" {
		fmt.Fprintf(out, "  excerpt: %s\n", clipText(s.Excerpt, 200))
	}
	fmt.Fprintf(out, "  why:     %s\n", s.Reason)
	if a := s.Assessment; a != nil {
		for _, w := range a.Why {
			fmt.Fprintf(out, "           %s\n", w)
		}
		if s.Lane != "" && s.Lane != "inbox" {
			fmt.Fprintf(out, "  lane:    %s\n", laneReason(s))
		}
		if s.Screener != nil {
			fmt.Fprintf(out, "  screener: %s (rule %s)\n", s.Screener.Why, s.Screener.RuleID)
		}
		if a.Learning != "" {
			fmt.Fprintf(out, "  learner: %s\n", a.Learning)
		}
	}
	if o := s.ScreenerOffer; o != nil {
		fmt.Fprintf(out, "  new %s: %s — %s screen-sender %s --show|--screen\n", o.Of, o.Value, env.program(), s.ID)
	}
	if s.ResolvedID != "" {
		fmt.Fprintf(out, "  became:  %s %s\n", s.ResolvedKind, s.ResolvedID)
	}
	if s.Plan != nil && len(s.Plan.Actions) > 0 {
		fmt.Fprintln(out)
		printPlan(out, s.ID, *s.Plan)
	}
	fmt.Fprintf(out, "\nTrace %s:\n", s.TraceID)
	w := table(out)
	for _, e := range trail {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", e.At.Local().Format("2006-01-02 15:04:05"), e.Stage, e.Type, e.Summary)
	}
	return w.Flush()
}

func runApprove(ctx context.Context, args []string, env Env) error {
	f := newFlags("approve", env, true)
	as := f.String("as", "", "what to create: task, note, event or project (default: the proposed kind)")
	title := f.String("title", "", "replace the title")
	body := f.String("body", "", "replace the body")
	due := f.String("due", "", "due date for a task (2026-05-31 or RFC 3339)")
	starts := f.String("starts", "", "start of an event (RFC 3339 or date)")
	var pf planFlags
	pf.register(f)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := pf.check(); err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErrorf("want one or more suggestion IDs")
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	for _, id := range pos {
		a := apitype.Approve{As: *as}
		if a.As == "" {
			s, err := c.Suggestion(ctx, id)
			if err != nil {
				return err
			}
			a.As = s.ProposedKind
		}
		set := func(v string) *string {
			if v == "" {
				return nil
			}
			return &v
		}
		a.Title, a.Body, a.Due, a.StartsAt = set(*title), set(*body), set(*due), set(*starts)
		a.Always = pf.always
		if pf.changes() {
			if a.Actions, err = pf.choose(ctx, c, id, a.As); err != nil {
				return withID(pos, id, err)
			}
		}
		e, err := c.Approve(ctx, id, a)
		if err != nil {
			return withID(pos, id, err)
		}
		if f.json {
			if err := printJSON(env.Stdout, e); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(env.Stdout, "Approved %s → %s %s %q\n", id, e.Kind, e.ID, e.Title)
	}
	return nil
}

// withID names the ID an error is about when the command was given several.
func withID(ids []string, id string, err error) error {
	if len(ids) > 1 {
		return fmt.Errorf("%s: %w", id, err)
	}
	return err
}

func runReject(ctx context.Context, args []string, env Env) error {
	return runLaneAction(ctx, rejectAction, args, env)
}

func runEntities(ctx context.Context, kind string, args []string, env Env) error {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	f := newFlags(kind+"s "+sub, env, true)
	body := f.String("body", "", "body text (add)")
	due := f.String("due", "", "a task's due date (add): 2026-05-31 or RFC 3339")
	starts := f.String("starts", "", "an event's start (add): 2026-05-31 or RFC 3339")
	ends := f.String("ends", "", "an event's end (add)")
	location := f.String("location", "", "an event's place (add)")
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if err := kindFlags(f, kind); err != nil {
		return err
	}
	switch sub {
	case "list", "ls":
		list, err := c.Entities(ctx, kind)
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, list)
		}
		if len(list) == 0 {
			fmt.Fprintf(env.Stdout, "No %ss.\n", kind)
			return nil
		}
		return entityRows(env.Stdout, kind, list)
	case "add":
		if len(pos) == 0 {
			return usageErrorf("want a TITLE")
		}
		title := strings.Join(pos, " ")
		in := apitype.EntityInput{Title: &title}
		set := func(v *string) *string {
			if *v == "" {
				return nil
			}
			return v
		}
		in.Body, in.Due, in.StartsAt, in.EndsAt, in.Location = set(body), set(due), set(starts), set(ends), set(location)
		e, err := c.CreateEntity(ctx, kind, in)
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, e)
		}
		fmt.Fprintf(env.Stdout, "Created %s %s %q\n", kind, e.ID, e.Title)
		return nil
	case "done", "undone":
		if len(pos) != 1 {
			return usageErrorf("want exactly one ID")
		}
		d := sub == "done"
		e, err := c.UpdateEntity(ctx, kind, pos[0], apitype.EntityInput{Done: &d})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s %s done=%t\n", kind, e.ID, d)
		return nil
	case "rm", "delete":
		if len(pos) != 1 {
			return usageErrorf("want exactly one ID")
		}
		if err := c.DeleteEntity(ctx, kind, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Deleted %s %s\n", kind, pos[0])
		return nil
	}
	return usageErrorf("unknown subcommand %q (want list, add, done, undone, rm)", sub)
}

func runAudit(ctx context.Context, args []string, env Env) error {
	f := newFlags("audit", env, true)
	trace, c, err := f.oneArg(args, "TRACE_ID (see: scouts show SUGGESTION_ID)")
	if err != nil {
		return err
	}
	trail, err := c.Audit(ctx, trace)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, trail)
	}
	if len(trail) == 0 {
		fmt.Fprintf(env.Stdout, "No audit events for trace %s.\n", trace)
		return nil
	}
	w := table(env.Stdout)
	for _, e := range trail {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.At.Local().Format("2006-01-02 15:04:05"), e.Stage, e.Type, e.Outcome, e.Summary)
	}
	return w.Flush()
}
