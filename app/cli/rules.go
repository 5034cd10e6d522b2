package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
)

// A scout's rules: scouts rules SCOUT_ID [add|edit|rm|enable|disable|move|test|schema] (docs/rules.md).

const rulesUsage = `usage: scouts rules SCOUT_ID                       list the scout's rules, in order
       scouts rules show SCOUT_ID RULE_ID              print a rule's document
       scouts rules add SCOUT_ID FILE|- [--position N] add a rule (a JSON document; - reads stdin)
       scouts rules edit SCOUT_ID FILE|-               replace the rule with the document's id
       scouts rules rm SCOUT_ID RULE_ID
       scouts rules enable|disable SCOUT_ID RULE_ID
       scouts rules move SCOUT_ID RULE_ID POSITION     0 is first
       scouts rules test SCOUT_ID FILE|-               what the rule would have done to the
                                                       scout's latest 50 items
       scouts rules schema [KIND]                      the grammar's JSON Schema
A change (add, edit, rm, enable, disable, move) to a scout a definitions file
manages is refused unless --write-file writes it to the file too.`

func runRules(ctx context.Context, args []string, env Env) error {
	sub := ""
	if len(args) > 0 {
		switch args[0] {
		case "list", "ls", "show", "add", "edit", "rm", "delete", "enable", "disable", "move", "test", "schema":
			sub, args = args[0], args[1:]
		}
	}
	switch sub {
	case "", "list", "ls":
		return listRules(ctx, args, env)
	case "show":
		return showRule(ctx, args, env)
	case "add", "edit", "test":
		return sendRule(ctx, sub, args, env)
	case "rm", "delete", "enable", "disable":
		return changeRule(ctx, sub, args, env)
	case "move":
		return moveRule(ctx, args, env)
	case "schema":
		return rulesSchema(ctx, args, env)
	}
	return usageErrorf("%s", rulesUsage)
}

func listRules(ctx context.Context, args []string, env Env) error {
	f := newFlags("rules", env, true)
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	list, err := c.Rules(ctx, id)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	if len(list.Rules) == 0 {
		fmt.Fprintf(env.Stdout, "Scout %s has no rules. Add one with: %s scouts rules add %s FILE (see docs/rules.md)\n", id, env.program(), id)
		return nil
	}
	w := table(env.Stdout)
	fmt.Fprintln(w, "#\tID\tON\tVERDICT\tDOES\tNAME")
	for _, r := range list.Rules {
		var doc struct {
			Name    string `json:"name"`
			Enabled *bool  `json:"enabled"`
			Then    struct {
				Verdict, Kind, Title, Project, Due string
				Actions                            []struct{ Action string }
			} `json:"then"`
			ID string `json:"id"`
		}
		json.Unmarshal(r.Rule, &doc)
		on := "yes"
		if doc.Enabled != nil && !*doc.Enabled {
			on = "no"
		}
		var does []string
		for _, kv := range [][2]string{{"kind", doc.Then.Kind}, {"title", doc.Then.Title}, {"project", doc.Then.Project}, {"due", doc.Then.Due}} {
			if kv[1] != "" {
				does = append(does, kv[0]+" "+clipText(kv[1], 30))
			}
		}
		for _, a := range doc.Then.Actions {
			does = append(does, a.Action)
		}
		if r.Relay {
			does = append(does, "(applied by the relay)")
		}
		if r.Problem != "" {
			does = append(does, "SKIPPED: "+clipText(r.Problem, 80))
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", r.Position, doc.ID, on, doc.Then.Verdict, strings.Join(does, "; "), doc.Name)
	}
	return w.Flush()
}

func showRule(ctx context.Context, args []string, env Env) error {
	f := newFlags("rules show", env, false)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("want SCOUT_ID RULE_ID")
	}
	list, err := c.Rules(ctx, pos[0])
	if err != nil {
		return err
	}
	for _, r := range list.Rules {
		var doc struct{ ID string }
		if json.Unmarshal(r.Rule, &doc) == nil && doc.ID == pos[1] {
			return printJSON(env.Stdout, r.Rule)
		}
	}
	return fmt.Errorf("scout %s has no rule %q", pos[0], pos[1])
}

// readDoc reads a rule document from a file, or standard input for "-".
func readDoc(name string, env Env) ([]byte, error) {
	if name == "-" {
		in := env.Stdin
		if in == nil {
			in = os.Stdin
		}
		return io.ReadAll(io.LimitReader(in, 1<<20))
	}
	return os.ReadFile(name)
}

func sendRule(ctx context.Context, sub string, args []string, env Env) error {
	f := newFlags("rules "+sub, env, true)
	position := -1
	if sub == "add" {
		f.IntVar(&position, "position", -1, "where to put the rule (0 is first; default last)")
	}
	if sub != "test" {
		f.changesScout()
	}
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("want SCOUT_ID FILE (or - for standard input)")
	}
	doc, err := readDoc(pos[1], env)
	if err != nil {
		return err
	}
	switch sub {
	case "add", "edit":
		var r apitype.Rule
		if sub == "add" {
			r, err = c.AddRule(ctx, pos[0], doc, position)
		} else {
			var id struct{ ID string }
			if json.Unmarshal(doc, &id) != nil || id.ID == "" {
				return usageErrorf("the document needs the id of the rule to replace")
			}
			r, err = c.UpdateRule(ctx, pos[0], id.ID, doc)
		}
		if err != nil {
			return err
		}
		if f.json {
			return printJSON(env.Stdout, r)
		}
		var d struct{ ID string }
		json.Unmarshal(r.Rule, &d)
		verb := map[string]string{"add": "Added", "edit": "Saved"}[sub]
		fmt.Fprintf(env.Stdout, "%s rule %s (position %d)\n", verb, d.ID, r.Position)
		if r.Relay {
			fmt.Fprintln(env.Stdout, "The relay applies it too, before the mail reaches this desktop.")
		}
		return nil
	}
	p, err := c.PreviewRule(ctx, pos[0], doc)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, p)
	}
	fmt.Fprintf(env.Stdout, "Rule %s on the latest %d items: %d match, %d do not, %d unknown (they depend on what cards do not keep)\n",
		p.RuleID, len(p.Items), p.Matched, p.NoMatch, p.Unknown)
	w := table(env.Stdout)
	fmt.Fprintln(w, "RESULT\tSUGGESTION\tTITLE\tWOULD")
	for _, it := range p.Items {
		would := ""
		switch {
		case it.Would != nil:
			would = it.Would.Lane
			if it.Would.Kind != "" {
				would += ", as " + it.Would.Kind
			}
			if it.Would.Title != "" {
				would += ", titled " + strconv.Quote(clipText(it.Would.Title, 40))
			}
			if it.Would.Due != nil {
				would += ", due " + it.Would.Due.Local().Format("2006-01-02 15:04")
			}
			for _, a := range it.Would.Actions {
				would += ", " + a.Action
			}
			if it.EarlierRule != "" {
				would += " (but rule " + it.EarlierRule + " decides first)"
			}
		case it.Result == "unknown":
			would = "depends on " + strings.Join(it.UnknownFields, ", ")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.Result, it.SuggestionID, clipText(it.Title, 50), would)
	}
	return w.Flush()
}

func changeRule(ctx context.Context, sub string, args []string, env Env) error {
	f := newFlags("rules "+sub, env, false).changesScout()
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("want SCOUT_ID RULE_ID")
	}
	switch sub {
	case "rm", "delete":
		if err := c.DeleteRule(ctx, pos[0], pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Deleted rule %s\n", pos[1])
		return nil
	}
	if _, err := c.SetRuleEnabled(ctx, pos[0], pos[1], sub == "enable"); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Rule %s %sd\n", pos[1], sub)
	return nil
}

func moveRule(ctx context.Context, args []string, env Env) error {
	f := newFlags("rules move", env, false).changesScout()
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usageErrorf("want SCOUT_ID RULE_ID POSITION")
	}
	to, err := strconv.Atoi(pos[2])
	if err != nil || to < 0 {
		return usageErrorf("position %q: want a number from 0 (the first rule)", pos[2])
	}
	list, err := c.Rules(ctx, pos[0])
	if err != nil {
		return err
	}
	var ids []string
	found := false
	for _, r := range list.Rules {
		var d struct{ ID string }
		json.Unmarshal(r.Rule, &d)
		if d.ID == pos[1] {
			found = true
			continue
		}
		ids = append(ids, d.ID)
	}
	if !found {
		return fmt.Errorf("scout %s has no rule %q", pos[0], pos[1])
	}
	to = min(to, len(ids))
	ids = append(ids[:to], append([]string{pos[1]}, ids[to:]...)...)
	if _, err := c.ReorderRules(ctx, pos[0], ids); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Rule %s is now at position %d\n", pos[1], to)
	return nil
}

func rulesSchema(ctx context.Context, args []string, env Env) error {
	f := newFlags("rules schema", env, false)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("want at most a scout kind (gmail, folder, webhook)")
	}
	kind := ""
	if len(pos) == 1 {
		kind = pos[0]
	}
	doc, err := c.RulesSchema(ctx, kind)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(doc, '\n'))
	return err
}
