package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// Scouts as definitions (docs/definitions.md): export, import, history,
// diff and rollback.

// runExport prints the scouts' definitions as JSON: one document for one
// scout, an array otherwise; with --yaml, YAML documents separated by
// "---" (what import reads back either way).
func runExport(ctx context.Context, args []string, env Env) error {
	f := newFlags("export", env, false)
	asYAML := f.Bool("yaml", false, "print YAML documents separated by --- instead of JSON")
	history := f.Bool("history", false, "add each scout's past versions (what import needs to recreate them)")
	ids, c, err := f.start(args)
	if err != nil {
		return err
	}
	docs, err := c.ExportDefinitions(ctx, *history, ids...)
	if err != nil {
		return err
	}
	if *asYAML {
		raw := make([][]byte, len(docs))
		for i, d := range docs {
			raw[i] = d
		}
		out, err := definition.YAML(raw...)
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(out)
		return err
	}
	if len(ids) == 1 && len(docs) == 1 {
		return printJSON(env.Stdout, docs[0])
	}
	return printJSON(env.Stdout, docs)
}

// runImport reads definitions from a file or standard input and says what
// importing them changes; only --apply changes anything. A broken file is
// reported as FILE:LINE: reason before the agent is asked.
func runImport(ctx context.Context, args []string, env Env) error {
	f := newFlags("import", env, true)
	apply := f.Bool("apply", false, "make the changes (default: only show them)")
	noHistory := f.Bool("no-history", false, "leave out the history an export carries (import the definitions alone)")
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("want one FILE (or - for standard input)")
	}
	name, data, err := readInput(pos[0], env)
	if err != nil {
		return err
	}
	if _, err := definition.ParseAll(name, data); err != nil {
		return err
	}
	res, err := c.ImportDefinitions(ctx, data, localclient.ImportOptions{Apply: *apply, WithoutHistory: *noHistory})
	if err != nil {
		var le *localclient.Error
		if errors.As(err, &le) {
			return fmt.Errorf("%s: %s", name, le.Message)
		}
		return err
	}
	if f.json {
		return printJSON(env.Stdout, res)
	}
	printImport(env.Stdout, res, env.program(), pos[0])
	return nil
}

func readInput(arg string, env Env) (string, []byte, error) {
	var r io.Reader
	name := arg
	if arg == "-" {
		r, name = env.Stdin, "stdin"
		if r == nil {
			r = os.Stdin
		}
	} else {
		fh, err := os.Open(arg)
		if err != nil {
			return "", nil, err
		}
		defer fh.Close()
		r = fh
	}
	data, err := io.ReadAll(io.LimitReader(r, definition.MaxExportSize+1))
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", name, err)
	}
	return name, data, nil
}

func printImport(w io.Writer, res apitype.ImportResult, program, arg string) {
	changed := 0
	for _, ch := range res.Changes {
		who := fmt.Sprintf("%s scout %q", ch.Kind, ch.Name)
		if ch.ScoutID != "" {
			who += " (" + ch.ScoutID + ")"
		}
		verb := map[string]string{"create": "create", "update": "update", "unchanged": "unchanged"}[ch.Action]
		if res.Applied {
			verb = map[string]string{"create": "created", "update": "updated", "unchanged": "unchanged"}[ch.Action]
		}
		if verb == "" {
			verb = ch.Action
		}
		line := verb + "  " + who
		if res.Applied && ch.Version > 0 {
			line += fmt.Sprintf(", version %d", ch.Version)
		}
		fmt.Fprintln(w, line)
		if n := len(ch.PastVersions); n > 0 {
			verb := "adds"
			if !res.Applied {
				verb = "would add"
			}
			fmt.Fprintf(w, "    history: %s %s (%s)\n", verb, plural(n, "past version"), versionRange(ch.PastVersions))
		}
		for _, fc := range ch.Changes {
			fmt.Fprintf(w, "    %s\n", fieldChange(fc))
		}
		if ch.HookToken != "" {
			fmt.Fprintf(w, "    webhook token (shown once): %s\n", ch.HookToken)
		}
		if ch.Action != "unchanged" {
			changed++
		}
	}
	switch {
	case len(res.Changes) == 0:
		fmt.Fprintln(w, "No definitions.")
	case !res.Applied && changed > 0:
		fmt.Fprintf(w, "Dry run: nothing changed. Apply with: %s import %s --apply\n", program, arg)
	case !res.Applied:
		fmt.Fprintln(w, "Nothing to change.")
	}
}

// versionRange writes version numbers as "1", "1–7" or "2, 5".
func versionRange(vs []int) string {
	contiguous := true
	for i := 1; i < len(vs); i++ {
		contiguous = contiguous && vs[i] == vs[i-1]+1
	}
	if len(vs) > 1 && contiguous {
		return fmt.Sprintf("versions %d–%d", vs[0], vs[len(vs)-1])
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	if len(s) == 1 {
		return "version " + s[0]
	}
	return "versions " + strings.Join(s, ", ")
}

func fieldChange(fc apitype.FieldChange) string {
	switch {
	case fc.From == "":
		return fmt.Sprintf("%s: + %s", fc.Path, fc.To)
	case fc.To == "":
		return fmt.Sprintf("%s: - %s", fc.Path, fc.From)
	}
	return fmt.Sprintf("%s: %s → %s", fc.Path, fc.From, fc.To)
}

// runHistory lists a scout's definition versions, newest first.
func runHistory(ctx context.Context, args []string, env Env) error {
	f := newFlags("history", env, true)
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	list, err := c.ScoutVersions(ctx, id)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No versions.")
		return nil
	}
	w := table(env.Stdout)
	fmt.Fprintln(w, "VERSION\tWHEN\tBY\tNOTE")
	for _, v := range list {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", v.Version, v.CreatedAt.Local().Format("2006-01-02 15:04"), v.Actor, v.Note)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(list) > 1 {
		fmt.Fprintf(env.Stdout, "Compare two with: %s diff %s %d %d\n", env.program(), id, list[1].Version, list[0].Version)
	}
	return nil
}

// runDiff says what changed between two versions of a scout.
func runDiff(ctx context.Context, args []string, env Env) error {
	f := newFlags("diff", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usageErrorf("want SCOUT_ID FROM TO (two version numbers)")
	}
	from, err1 := parseVersion(pos[1])
	to, err2 := parseVersion(pos[2])
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	d, err := c.DiffScoutVersions(ctx, pos[0], from, to)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, d)
	}
	if len(d.Changes) == 0 {
		fmt.Fprintf(env.Stdout, "Versions %d and %d are the same.\n", from, to)
		return nil
	}
	fmt.Fprintf(env.Stdout, "From version %d to %d:\n", from, to)
	for _, fc := range d.Changes {
		fmt.Fprintf(env.Stdout, "  %s\n", fieldChange(fc))
	}
	return nil
}

// runRollback makes an earlier version a scout's definition again.
func runRollback(ctx context.Context, args []string, env Env) error {
	f := newFlags("rollback", env, true)
	pos, c, err := f.start(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("want SCOUT_ID VERSION")
	}
	v, err := parseVersion(pos[1])
	if err != nil {
		return err
	}
	ch, err := c.RollbackScout(ctx, pos[0], v)
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, ch)
	}
	if ch.Action == "unchanged" {
		fmt.Fprintf(env.Stdout, "Scout %s already is as in version %d.\n", pos[0], v)
		return nil
	}
	fmt.Fprintf(env.Stdout, "Scout %s is as in version %d again (now version %d).\n", pos[0], v, ch.Version)
	for _, fc := range ch.Changes {
		fmt.Fprintf(env.Stdout, "  %s\n", fieldChange(fc))
	}
	return nil
}

func parseVersion(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "v"))
	if err != nil || n < 1 {
		return 0, usageErrorf("%q is not a version number", s)
	}
	return n, nil
}

// definitionsStatus prints the definitions folder's broken files under
// the status table (nothing when all are valid).
func definitionsStatus(ctx context.Context, w io.Writer, c *localclient.Client) {
	st, err := c.DefinitionsStatus(ctx)
	if err != nil {
		return // an older agent: nothing to show
	}
	if len(st.DefinitionErrors) == 0 {
		if st.Dir != "" {
			fmt.Fprintf(w, "Definitions\t%s (%s managed by a file)\n", st.Dir, plural(len(st.ManagedBy), "scout"))
		}
		return
	}
	fmt.Fprintf(w, "Definitions\t%s: %s that change nothing until fixed\n", st.Dir, plural(len(st.DefinitionErrors), "broken file"))
	for _, e := range st.DefinitionErrors {
		where := e.File
		if e.Line > 0 {
			where += ":" + strconv.Itoa(e.Line)
		}
		fmt.Fprintf(w, "\t  %s: %s\n", where, e.Reason)
	}
}

// managedBy maps scout ids to the definition file managing them (nil when
// the agent cannot say).
func managedBy(ctx context.Context, c *localclient.Client) map[string]string {
	st, err := c.DefinitionsStatus(ctx)
	if err != nil {
		return nil
	}
	return st.ManagedBy
}
