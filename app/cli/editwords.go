package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// editInWords: scouts scouts edit ID --describe "…" [--yes] — the agent's
// model changes the scout as the words say; the change is printed as a
// diff with the risks it adds, and saved only once the person says so
// (docs/definitions.md, "Changing a scout in words").
func editInWords(ctx context.Context, args []string, env Env) error {
	f := newFlags("scouts edit", env, true)
	describe := f.String("describe", "", `what to change, in plain words ("also archive the newsletters")`)
	yes := f.Bool("yes", false, "save the change without asking")
	id, c, err := f.oneArg(args, "scout ID")
	if err != nil {
		return err
	}
	if strings.TrimSpace(*describe) == "" {
		return usageErrorf(`say what to change: --describe "…"`)
	}
	d, err := c.EditDraft(ctx, id, *describe)
	if err != nil {
		return err
	}
	if f.json && !*yes {
		return printJSON(env.Stdout, d)
	}
	if !f.json {
		printEditDraft(env.Stdout, d)
	}
	if !d.Valid {
		return errors.New("the change is not a valid definition of the scout: nothing saved")
	}
	if !changes(d) {
		return nil
	}
	if !*yes {
		ok, err := confirm(env, "Save this change as a new version? [y/N] ")
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(env.Stdout, "Not saved.")
			return nil
		}
	}
	ch, err := c.SaveEditDraft(ctx, d)
	var le *localclient.Error
	if errors.As(err, &le) && le.Status == 409 {
		return fmt.Errorf("not saved: %s", le.Message)
	}
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(env.Stdout, map[string]any{"draft": d, "saved": ch})
	}
	fmt.Fprintf(env.Stdout, "Saved: scout %s is now version %d. Undo with: %s rollback %s %d\n", id, ch.Version, env.program(), id, d.BaseVersion)
	return nil
}

// errNoTerminal: the change needs the person's yes, and there is no
// terminal to ask on.
var errNoTerminal = errors.New("not saved: there is no terminal to confirm on — read the change above, then run the command again with --yes to save it (the model drafts it again)")

// confirm asks a yes/no question on the terminal; without one it refuses.
func confirm(env Env, question string) (bool, error) {
	in, ok := env.Stdin.(*os.File)
	if env.Stdin == nil {
		in, ok = os.Stdin, true
	}
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return false, errNoTerminal
	}
	fmt.Fprint(env.Stderr, question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

func changes(d apitype.EditDraft) bool {
	for _, l := range d.Diff {
		if l.Op != "same" {
			return true
		}
	}
	return false
}

// diffContext is how many unchanged lines are shown around a change.
const diffContext = 3

// printEditDraft prints a drafted change: the diff (changed lines with a
// few lines around them), the risks it adds, or why it is not valid.
func printEditDraft(w io.Writer, d apitype.EditDraft) {
	fmt.Fprintf(w, "Change to scout %s (from version %d): %s\n", d.ScoutID, d.BaseVersion, d.Describe)
	if !d.Valid {
		fmt.Fprintln(w, "Not valid:")
		for _, e := range d.Errors {
			where := e.File
			if e.Line > 0 {
				where += fmt.Sprintf(":%d", e.Line)
			}
			fmt.Fprintf(w, "  %s: %s\n", where, e.Reason)
		}
	}
	if !changes(d) {
		if d.Valid {
			fmt.Fprintln(w, "The model changed nothing.")
		}
		return
	}
	near := make([]bool, len(d.Diff))
	for i, l := range d.Diff {
		if l.Op == "same" {
			continue
		}
		for j := max(0, i-diffContext); j <= min(len(d.Diff)-1, i+diffContext); j++ {
			near[j] = true
		}
	}
	fmt.Fprintln(w)
	skipped := false
	for i, l := range d.Diff {
		if !near[i] {
			skipped = true
			continue
		}
		if skipped {
			fmt.Fprintln(w, "  …")
			skipped = false
		}
		mark := map[string]string{"same": " ", "add": "+", "remove": "-"}[l.Op]
		fmt.Fprintf(w, "%s %s\n", mark, l.Text)
	}
	if skipped {
		fmt.Fprintln(w, "  …")
	}
	fmt.Fprintln(w)
	if !d.Valid {
		return
	}
	if len(d.RisksAdded) == 0 {
		fmt.Fprintln(w, "Risks it adds: none.")
		return
	}
	fmt.Fprintln(w, "Risks it adds:")
	for _, r := range d.RisksAdded {
		fmt.Fprintf(w, "  ! %s\n", r.Message)
	}
}
