package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/scouts-hq/scouts/app/evaluate"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

// runEval is `scouts eval [DIR]`: the product measured on a corpus by a
// simulated user (see docs/triage.md, "Learning from decisions"). It needs
// no agent: it runs its own engine over temporary databases.
func runEval(ctx context.Context, args []string, env Env) error {
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
	fl := &flags{FlagSet: f, help: env.Stdout}
	pos, err := fl.parse(args)
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
		o.Progress = env.Stderr
	}
	rep, err := evaluate.Run(ctx, o)
	if err != nil {
		return err
	}
	if *jsonOut {
		return printJSON(env.Stdout, rep)
	}
	rep.Print(env.Stdout)
	return nil
}
