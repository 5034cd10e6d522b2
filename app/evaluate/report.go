package evaluate

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// Print writes the report for people.
func (r Report) Print(w io.Writer) {
	in := r.Input
	var kinds []string
	for _, k := range slices.Sorted(maps.Keys(in.ByKind)) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, in.ByKind[k]))
	}
	fmt.Fprintf(w, "Input: %d messages (%s layout): %d spam, %d not; the policy wants %d (%s)", in.Messages, in.Layout, in.Spam, in.Ham, in.Wanted, strings.Join(kinds, ", "))
	if in.Skipped > 0 {
		fmt.Fprintf(w, "; %d files skipped as not mail", in.Skipped)
	}
	fmt.Fprintln(w)
	s := r.Settings
	fmt.Fprintln(w, r.playedAs())
	fmt.Fprintf(w, "Thresholds: cold start %d decisions, screen below %.2f, spam above %.2f (at least %d spam and %d not).\n\n",
		s.ColdStart, s.ScreenBelow, s.SpamAbove, s.MinSpam, s.MinSpam)
	r.printHeadline(w)
	r.printCurve(w)
	r.printPerson(w)
	t := r.Training
	fmt.Fprintf(w, "While training (each card as it arrived, before the user looked): spam caught %s, legitimate mail to Spam %s; wanted shown %s, junk in the inbox %s, kind right %s.\n",
		pct(t.SpamRecall), pct2(t.LegitToSpam), pct(t.WantedShown), pct(t.ShownUnwanted), pct(t.KindAccuracy))
	a := r.Accounting
	fmt.Fprintf(w, "Accounting: %d messages = %d arrived while the user decided + %d scored + %d unreadable; %d files skipped.\n\n", a.Messages, a.Trained, a.Scored, a.Unreadable, a.Skipped)

	tp := r.Throughput
	unit := "CPU second (user + system, all threads)"
	if !tp.CPU {
		unit = "wall second (CPU time is not available here)"
	}
	fmt.Fprintf(w, "Speed, messages per %s:\n", unit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range []struct {
		name string
		v    float64
	}{
		{"product path: read, triage, content cues, learner, record in SQLite", tp.Product},
		{"read mail (headers, 4,000 runes of text)", tp.Parse},
		{"heuristics", tp.Heur},
		{"content cues (kind, dates, project)", tp.Cues},
		{"learner features", tp.Extract},
		{"learner prediction (counts through the store, as the engine reads them)", tp.Predict},
		{"floor: the same prediction on a plain map of the counts", tp.PredictMem},
		{"learner + heuristics", tp.Learner},
		{"read mail + learner + heuristics", tp.WithParse},
	} {
		fmt.Fprintf(tw, "  %s\t%.0f\t\n", row.name, row.v)
	}
	tw.Flush()
	fmt.Fprintf(w, "Decision (one transaction that also teaches): median %s, p99 %s over %d calls; floor, a bare SQLite insert of the same rows: median %s, p99 %s.\n",
		us(r.Update.Median), us(r.Update.P99), r.Update.N, us(r.UpdateFloor.Median), us(r.UpdateFloor.P99))
	m := r.Model
	perItem := int64(0)
	if m.Items > 0 {
		perItem = m.ItemBytes / int64(m.Items)
	}
	fmt.Fprintf(w, "Model after %d decisions: %d features, %s; beside it, the hashes of every item that arrived (for exact unlearning): %d B per item.\n",
		m.Decisions, m.Features, size(m.FeatureBytes), perItem)

	if cv := r.SpamCV; cv != nil {
		fmt.Fprintf(w, "\nSpam alone, %d-fold cross-validation (%d spam, %d not; every training message decided spam or not):\n", cv.Folds, cv.Spam, cv.Ham)
		fmt.Fprintf(w, "  at the product's threshold (Spam lane, p ≥ %.2f): recall %s, FPR %s (%d of %d), precision %s, F1 %.3f\n",
			cv.Threshold, pct(cv.Recall), pct2(cv.FPR), cv.FP, cv.Ham, pct(cv.Precision), cv.F1)
		fmt.Fprintf(w, "  best recall at FPR ≤ %s (threshold swept): recall %s at FPR %s, threshold %s\n",
			pct2(MaxFPR), pct(cv.SweepRecall), pct2(cv.SweepFPR), threshold(cv.SweepThreshold))
		fmt.Fprintf(w, "  decisions: median %s, p99 %s over %d calls\n", us(cv.Update.Median), us(cv.Update.P99), cv.Update.N)
		var g []string
		for _, f := range cv.Growth {
			g = append(g, fmt.Sprintf("%d → %d (%s)", f.Decisions, f.Features, size(f.FeatureBytes)))
		}
		fmt.Fprintf(w, "  model growth, decisions → features: %s\n", strings.Join(g, ", "))
		x := cv.At10k
		fmt.Fprintf(w, "  extrapolated to %d decisions: %d features (%s) + per-item hashes %s = %s\n",
			x.Decisions, x.Features, size(x.FeatureBytes), size(x.ItemBytes), size(x.FeatureBytes+x.ItemBytes))
	}
	if c := r.Compare; c != nil {
		fmt.Fprintln(w)
		c.Print(w)
	}
}

func pct(f float64) string  { return fmt.Sprintf("%.1f %%", 100*f) }
func pct2(f float64) string { return fmt.Sprintf("%.2f %%", 100*f) }

func us(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f ms", v/1000)
	}
	return fmt.Sprintf("%.0f µs", v)
}

func size(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

func threshold(t float64) string {
	if t < 0 {
		return "none (only the heuristics' verdicts)"
	}
	return fmt.Sprintf("%.4f", t)
}
