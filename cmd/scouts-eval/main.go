// Command scouts-eval measures the product on a corpus of mail decided by a
// simulated user (see docs/triage.md, "Measuring: scouts eval"). `scouts
// eval ARGS` runs it with the same arguments. It is a program of its own so
// that the always-on agent (bin/scouts) links neither the evaluation nor
// the corpus with its embedded held-out checksums; `make eval` builds it
// beside bin/scouts.
//
//	scouts-eval [DIR] [--policy FILE] [--train 400] [--seed 1] [--spam-cv K] [--compare] [--json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/scouts-hq/scouts/app/evaluate"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a mistake on the command line: exit status 2, as the
// scouts command line answers one.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return usageError{msg: fmt.Sprintf(format, args...)}
}

// run is the program with its arguments; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := eval(ctx, args, stdout, stderr)
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "scouts eval: %s\n", ue.msg)
		return 2
	default:
		fmt.Fprintf(stderr, "scouts eval: %v\n", err)
		return 1
	}
}

// eval needs no agent: it runs its own engine over temporary databases.
func eval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := flag.NewFlagSet("scouts eval", flag.ContinueOnError)
	f.SetOutput(io.Discard)
	policyFile := f.String("policy", "", "JSON file saying which lists, domains or senders the simulated user wants, as which kind (default: the shipped policy for the SpamAssassin development groups)")
	train := f.Int("train", 400, "decisions the simulated user makes before the rest is only scored")
	seed := f.Uint64("seed", 1, "seed of the arrival order")
	spamCV := f.Int("spam-cv", 0, "also run K-fold cross-validation of spam alone (K ≥ 2)")
	compare := f.Bool("compare", false, "also compare the product's learner with online logistic regression (in memory)")
	jsonOut := f.Bool("json", false, "print JSON")
	quiet := f.Bool("quiet", false, "no progress lines on stderr")
	def := scouts.DefaultLearnSettings()
	coldStart := f.Int("cold-start", def.ColdStart, "the scout's learner threshold: decisions before anything is screened or filed as spam")
	screenBelow := f.Float64("screen-below", def.ScreenBelow, "the scout's learner threshold: screen what is less likely to be approved")
	spamAbove := f.Float64("spam-above", def.SpamAbove, "the scout's learner threshold: file as spam from this spam probability")
	minSpam := f.Int("min-spam", def.MinSpam, "the scout's learner threshold: spam and non-spam decisions before filing spam")
	pos, err := parse(f, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("want at most one corpus directory")
	}
	if *spamCV == 1 || *spamCV < 0 {
		return usageErrorf("--spam-cv wants at least 2 folds")
	}
	pol := evaluate.DefaultPolicy()
	if *policyFile != "" {
		b, err := os.ReadFile(*policyFile)
		if err != nil {
			return err
		}
		if pol, err = evaluate.ParsePolicy(b); err != nil {
			return fmt.Errorf("%s: %w", *policyFile, err)
		}
	}
	var dir string
	if len(pos) == 1 {
		dir = pos[0]
	} else {
		root, err := corpus.DefaultRoot()
		if err != nil {
			return err
		}
		c, err := corpus.Locate(ctx, root)
		if err != nil {
			return err
		}
		dir = c.Dir()
	}
	in, err := evaluate.LoadInput(dir, corpus.HeldOutSums())
	if err != nil {
		return err
	}
	set := scouts.LearnSettings{ColdStart: *coldStart, ScreenBelow: *screenBelow, SpamAbove: *spamAbove, MinSpam: *minSpam}
	if err := set.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	o := evaluate.Options{Input: in, Policy: pol, Train: *train, Seed: *seed, SpamCV: *spamCV, Compare: *compare, Settings: set}
	if !*quiet {
		o.Progress = stderr
	}
	rep, err := evaluate.Run(ctx, o)
	if err != nil {
		return err
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	rep.Print(stdout)
	return nil
}

// parse reads flags wherever they stand among the positional arguments
// (`scouts eval DIR --json` as well as `scouts eval --json DIR`), as the
// scouts command line does: it moves --json after the command. A mistake
// is one line; --help lists the flags on stdout.
func parse(f *flag.FlagSet, args []string, help io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(help, "Usage of %s:\n", f.Name())
				f.SetOutput(help)
				f.PrintDefaults()
				return nil, err
			}
			return nil, usageErrorf("%v (scouts eval --help lists its flags)", err)
		}
		args = f.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
