package evaluate

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// Targets of issue 19, printed beside the figures (never asserted).
const (
	targetSpamCaught  = "≥ 95 %"
	targetLegitToSpam = "≤ 0.2 %"
	targetHardToSpam  = "≤ 2 %"
	targetJunk        = "≤ 10 % (after 200 and 1,000 decisions)"
	targetWanted      = "≥ 95 % (after 200 and 1,000 decisions)"
	targetKind        = "≥ 80 % (after 100 decisions)"
	targetCurve       = "≥ 90 % spam caught within 300 decisions"
	targetSpeed       = "≥ 5,000"
)

// playedAs says in words who decided what.
func (r Report) playedAs() string {
	user := "confirm-all (decides every card wherever it landed, spam included)"
	if r.User == UserRealistic {
		user = "realistic (decides every inbox card; looks at Screened and Spam only to bring back mistakes; leaves correct placements alone)"
	}
	split := fmt.Sprintf("the first %d arrivals (order shuffled by seed %d) are decided, the other %d only scored", r.Train, r.Seed, r.Test)
	switch r.Split {
	case SplitDate:
		split = fmt.Sprintf("by Date header: the earlier %d arrive in that order and the user decides them, the later %d (from %s) are only scored, nobody deciding",
			r.Train, r.Test, r.TestFrom.UTC().Format("2 Jan 2006"))
	case SplitDirs:
		split = fmt.Sprintf("the training directory's %d arrive by Date and the user decides them, the test directory's %d are only scored", r.Train, r.Test)
	}
	silence := "off"
	if r.Implicit {
		silence = fmt.Sprintf("a card left alone in Spam or Screened teaches as confirmed after the next batch (grace %d days, silence weighing %g of a decision)", r.Settings.SilenceDays, engine.SilenceWeight)
	}
	return fmt.Sprintf("User: %s, looking after every %d arrivals.\nSplit: %s.\nImplicit feedback: %s.", user, r.Batch, split, silence)
}

// printHeadline prints the final figures on the test part with the
// targets beside them.
func (r Report) printHeadline(w io.Writer) {
	f, p := r.Final(), r.Person
	fmt.Fprintf(w, "On the later part (%d messages), after all %d decisions:\n", f.Messages, f.Decisions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tmeasured\ttarget\t")
	fmt.Fprintf(tw, "  spam caught (Spam lane or Trash)\t%s (%d of %d)\t%s\t\n", pct(f.SpamRecall), f.TP, f.TP+f.FN, targetSpamCaught)
	fmt.Fprintf(tw, "  legitimate mail sent to Spam (hard ham apart)\t%s (%d of %d)\t%s\t\n", pct2(f.LegitToSpam), f.LegitFP, f.Legit, targetLegitToSpam)
	fmt.Fprintf(tw, "  hard ham sent to Spam (stress set)\t%s (%d of %d)\t%s\t\n", pct(f.HardToSpam), f.HardFP, f.Hard, targetHardToSpam)
	fmt.Fprintf(tw, "  junk in the inbox (spam + unwanted, of all inbox cards)\t%s (%d spam + %d unwanted of %d)\t%s\t\n", pct(f.ShownUnwanted), f.InboxSpam, f.InboxUnwanted, f.Shown, targetJunk)
	fmt.Fprintf(tw, "  wanted mail shown in the inbox\t%s (of %d)\t%s\t\n", pct(f.WantedShown), f.Wanted, targetWanted)
	fmt.Fprintf(tw, "  kind right on wanted mail\t%s\t%s\t\n", pct(f.KindAccuracy), targetKind)
	fmt.Fprintf(tw, "  decisions made\t%d\t\t\n", p.Decisions)
	fmt.Fprintf(tw, "  spam taught\t%d (%d reported, %d confirmed by silence)\t\t\n", p.SpamTaught, p.MarkedSpam, p.SettledSpam)
	unit := "CPU s"
	if !r.Throughput.CPU {
		unit = "wall s"
	}
	fmt.Fprintf(tw, "  learner + heuristics, messages per %s\t%.0f\t%s\t\n", unit, r.Throughput.Learner, targetSpeed)
	tw.Flush()
	fmt.Fprintln(w)
}

// printCurve prints the test part's figures at every checkpoint.
func (r Report) printCurve(w io.Writer) {
	fmt.Fprintf(w, "Learning curve (the same %d test messages, scored after each number of decisions; %s):\n", r.Test, targetCurve)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "decisions\tspam caught\tlegit to Spam\thard ham to Spam\tjunk in inbox\twanted shown\tkind right\tspam taught\tinbox\tscreened\tspam\t")
	for _, c := range r.Curve {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n", c.Decisions, pct(c.SpamRecall), pct2(c.LegitToSpam), pct(c.HardToSpam),
			pct(c.ShownUnwanted), pct(c.WantedShown), pct(c.KindAccuracy), c.SpamTaught,
			c.Lanes[scouts.LaneInbox], c.Lanes[scouts.LaneScreened], c.Lanes[scouts.LaneSpam])
	}
	tw.Flush()
}

// printPerson says what the user did.
func (r Report) printPerson(w io.Writer) {
	p := r.Person
	fmt.Fprintf(w, "The user made %d decisions in %d calls: %d approved, %d rejected, %d marked as spam; brought back %d from Screened and %d from Spam; left %d in Screened (%d of them spam) and %d in Spam.\n",
		p.Decisions, p.Calls, p.Approved, p.Rejected, p.MarkedSpam, p.RescuedScreened, p.RescuedSpam, p.LeftScreened, p.LeftScreenedSpam, p.LeftSpam)
	if r.Implicit {
		fmt.Fprintf(w, "Silence settled %d cards in Spam (taught spam) and %d in Screened (taught unwanted; %d of them were spam).\n",
			p.SettledSpam, p.SettledScreened, p.SettledScreenedSpam)
	}
	fmt.Fprintf(w, "The learner's spam model was taught %d spam and %d not.\n", p.SpamTaught, p.HamTaught)
}
