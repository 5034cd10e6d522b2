package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/scouts"
)

// planFlags are approve's options for the card's plan.
type planFlags struct {
	archive, noArchive, noLabel, always bool
	label                               string
}

func (p *planFlags) register(f *flags) {
	f.BoolVar(&p.archive, "archive", false, "also archive the email (a Gmail card)")
	f.BoolVar(&p.noArchive, "no-archive", false, "do not archive the email, whatever the defaults propose")
	f.StringVar(&p.label, "label", "", "also add this Gmail label to the email")
	f.BoolVar(&p.noLabel, "no-label", false, "add no Gmail label, whatever the defaults propose")
	f.BoolVar(&p.always, "always", false, "approve and always allow: the plan's actions run without asking for this scout from now on")
}

func (p *planFlags) check() error {
	switch {
	case p.archive && p.noArchive:
		return usageErrorf("--archive and --no-archive contradict each other")
	case p.label != "" && p.noLabel:
		return usageErrorf("--label and --no-label contradict each other")
	}
	return nil
}

// changes reports whether the flags change the proposed plan.
func (p *planFlags) changes() bool { return p.archive || p.noArchive || p.label != "" || p.noLabel }

// choose applies the flags to the card's proposed plan and returns the
// plan to send with the approval.
func (p *planFlags) choose(ctx context.Context, c *localclient.Client, id, as string) ([]apitype.ApproveAction, error) {
	plan, err := c.Plan(ctx, id, as)
	if err != nil {
		return nil, err
	}
	var out []apitype.ApproveAction
	for _, a := range plan.Actions {
		if a.State != "proposed" {
			continue
		}
		out = append(out, apitype.ApproveAction{Action: a.Action, Params: a.Params, Enabled: a.Enabled})
	}
	set := func(action string, on bool, params json.RawMessage) {
		for i := range out {
			if out[i].Action == action {
				out[i].Enabled = on
				if params != nil {
					out[i].Params = params
				}
				return
			}
		}
		if on {
			out = append(out, apitype.ApproveAction{Action: action, Params: params, Enabled: true})
		}
	}
	switch {
	case p.archive:
		set("gmail.archive", true, nil)
	case p.noArchive:
		set("gmail.archive", false, nil)
	}
	switch {
	case p.label != "":
		b, _ := json.Marshal(map[string]string{"label": p.label})
		set("gmail.label", true, b)
	case p.noLabel:
		set("gmail.label", false, nil)
	}
	return out, nil
}

// runPlan shows a card's plan: what approving it will do, or what its
// approval did, with each action's mode and state.
func runPlan(ctx context.Context, args []string, env Env) error {
	f := newFlags("plan", env, true)
	as := f.String("as", "", "the kind to show the plan for (default: the proposed kind)")
	id, c, err := f.oneArg(args, "suggestion ID")
	if err != nil {
		return err
	}
	plan, err := c.Plan(ctx, id, *as)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, plan)
	}
	printPlan(env.Stdout, id, plan)
	return nil
}

func printPlan(out io.Writer, id string, plan apitype.Plan) {
	if plan.Kind != "" {
		fmt.Fprintf(out, "Approving %s as %s will:\n", id, scouts.EntityKind(plan.Kind).WithArticle())
	} else {
		fmt.Fprintf(out, "Actions of %s:\n", id)
	}
	w := table(out)
	fmt.Fprintln(w, "  #\tACTION\tPARAMS\tMODE\tSTATE\t")
	for _, a := range plan.Actions {
		n := ""
		if a.N > 0 {
			n = strconv.Itoa(a.N)
		}
		state := a.State
		switch {
		case a.State == "proposed" && a.Enabled:
			state = "[x] will run"
		case a.State == "proposed" && a.Mode == "deny":
			state = "[ ] denied"
		case a.State == "proposed":
			state = "[ ] left out"
		case a.Error != "" && a.NextRetry != nil:
			state = fmt.Sprintf("%s (attempt %d failed: %s; next at %s)", a.State, a.Attempts, a.Error, a.NextRetry.Local().Format(time.TimeOnly))
		case a.Error != "":
			state = fmt.Sprintf("%s: %s", a.State, a.Error)
		}
		params := string(a.Params)
		if params == "{}" {
			params = ""
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s (%s)\t%s\t\n", n, a.Action, clipText(params, 60), a.Mode, a.ModeSource, state)
	}
	w.Flush()
	if plan.Failing > 0 {
		fmt.Fprintf(out, "\n%s failing: scouts action retry %s N, or scouts action drop %s N\n", plural(plan.Failing, "action"), id, id)
	}
}

// runAction retries or drops one of a card's actions.
func runAction(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 || (args[0] != "retry" && args[0] != "drop") {
		return usageErrorf("want: action retry|drop SUGGESTION_ID N")
	}
	f := newFlags("action "+args[0], env, true)
	pos, c, err := f.start(args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("want a suggestion ID and an action number")
	}
	n, err := strconv.Atoi(pos[1])
	if err != nil || n < 1 {
		return usageErrorf("%q is not an action number (see scouts plan %s)", pos[1], pos[0])
	}
	change := c.DropAction
	if args[0] == "retry" {
		change = c.RetryAction
	}
	a, err := change(ctx, pos[0], n)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, a)
	}
	fmt.Fprintf(env.Stdout, "Action %d of %s (%s) is %s\n", a.N, pos[0], a.Action, a.State)
	return nil
}

// runActions lists the action catalogue.
func runActions(ctx context.Context, args []string, env Env) error {
	f := newFlags("actions", env, true)
	_, c, err := f.start(args)
	if err != nil {
		return err
	}
	list, err := c.Actions(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	w := table(env.Stdout)
	fmt.Fprintln(w, "ACTION\tRISK\tRUNS\tAVAILABLE\tDESCRIPTION")
	for _, a := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\n", a.Name, a.Risk, a.Runs, a.Available, a.Description)
	}
	return w.Flush()
}

// runPolicies shows or changes the modes.
func runPolicies(ctx context.Context, args []string, env Env) error {
	if len(args) > 0 {
		switch args[0] {
		case "set":
			return setPolicy(ctx, args[1:], env, true)
		case "rm", "remove", "unset":
			return setPolicy(ctx, args[1:], env, false)
		case "defaults":
			return setDefaults(ctx, args[1:], env)
		}
	}
	f := newFlags("policies", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("want at most one scout ID")
	}
	scout := ""
	if len(pos) == 1 {
		scout = pos[0]
	}
	p, err := c.Policies(ctx, scout)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, p)
	}
	printPolicies(env.Stdout, scout, p)
	return nil
}

func printPolicies(out io.Writer, scout string, p apitype.Policies) {
	if scout != "" {
		fmt.Fprintf(out, "Modes for scout %s:\n", scout)
	} else {
		fmt.Fprintln(out, "Modes (global; a scout's own overrides: scouts policies SCOUT_ID):")
	}
	w := table(out)
	fmt.Fprintln(w, "  ACTION\tRISK\tMODE\tFROM")
	for _, r := range p.Resolved {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", r.Action, r.Risk, r.Mode, r.Source)
	}
	w.Flush()
	ids := make([]string, 0, len(p.Scouts))
	for id := range p.Scouts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if scout != "" && id != scout {
			continue
		}
		var parts []string
		for a, m := range p.Scouts[id] {
			parts = append(parts, a+"="+m)
		}
		slices.Sort(parts)
		fmt.Fprintf(out, "Overrides of %s: %s\n", id, strings.Join(parts, ", "))
	}
	label := "none"
	if p.Defaults.GmailLabel != "" {
		label = strconv.Quote(p.Defaults.GmailLabel)
	}
	fmt.Fprintf(out, "Gmail cards propose: archive %s, label %s\n", onOff(p.Defaults.GmailArchive), label)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func setPolicy(ctx context.Context, args []string, env Env, set bool) error {
	name := "policies rm"
	want := "ACTION"
	if set {
		name, want = "policies set", "ACTION allow|deny|require_approval"
	}
	f := newFlags(name, env, true)
	scout := f.String("scout", "", "the scout whose override this is (default: the global setting)")
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if (set && len(pos) != 2) || (!set && len(pos) != 1) {
		return usageErrorf("want %s", want)
	}
	// The agent's refusal of an unknown action points to its API; asked
	// here, the command names the command that lists them.
	defs, err := c.Actions(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(defs, func(d apitype.ActionDef) bool { return d.Name == pos[0] }) {
		return fmt.Errorf("unknown action %q (scouts actions lists them)", pos[0])
	}
	var mode *string
	if set {
		mode = &pos[1]
	}
	in := apitype.PutPolicies{}
	if *scout == "" {
		in.Global = map[string]*string{pos[0]: mode}
	} else {
		in.Scouts = map[string]map[string]*string{*scout: {pos[0]: mode}}
	}
	p, err := c.SetPolicies(ctx, in)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, p)
	}
	where := "globally"
	if *scout != "" {
		where = "for scout " + *scout
	}
	if set {
		fmt.Fprintf(env.Stdout, "%s is %s %s\n", pos[0], pos[1], where)
	} else {
		fmt.Fprintf(env.Stdout, "%s: the setting %s is removed\n", pos[0], where)
	}
	return nil
}

func setDefaults(ctx context.Context, args []string, env Env) error {
	f := newFlags("policies defaults", env, true)
	archive := f.String("archive", "", "Gmail cards propose archiving the email: on or off")
	label := f.String("label", "", "Gmail cards propose this label")
	noLabel := f.Bool("no-label", false, "Gmail cards propose no label")
	_, c, err := f.start(args)
	if err != nil {
		return err
	}
	cur, err := c.Policies(ctx, "")
	if err != nil {
		return err
	}
	d := cur.Defaults
	switch *archive {
	case "":
	case "on":
		d.GmailArchive = true
	case "off":
		d.GmailArchive = false
	default:
		return usageErrorf("--archive %q: want on or off", *archive)
	}
	if *label != "" {
		d.GmailLabel = *label
	}
	if *noLabel {
		d.GmailLabel = ""
	}
	p, err := c.SetPolicies(ctx, apitype.PutPolicies{Defaults: &d})
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, p)
	}
	printPolicies(env.Stdout, "", p)
	return nil
}
