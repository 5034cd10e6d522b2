package evaluate

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/learn"
	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// Comparison measures the product's learner (Robinson–Fisher counts) and
// online logistic regression on the same features, decisions and rules,
// in memory (the engine only runs the product's learner).
type Comparison struct {
	Folds int `json:"folds"`
	// RelevanceAfter and KindAfter are the decision counts at which
	// relevance and kinds are scored, on Test messages.
	RelevanceAfter int           `json:"relevance_after"`
	KindAfter      int           `json:"kind_after"`
	Test           int           `json:"test"`
	Algos          []AlgoFigures `json:"algorithms"`
}

// AlgoFigures are one algorithm's figures.
type AlgoFigures struct {
	Name string `json:"name"`
	// Spam cross-validation: at the product's threshold, and the best
	// recall at FPR ≤ MaxFPR over every threshold.
	SpamRecall     float64 `json:"spam_recall"`
	SpamFPR        float64 `json:"spam_fpr"`
	SweepRecall    float64 `json:"sweep_recall"`
	SweepFPR       float64 `json:"sweep_fpr"`
	SweepThreshold float64 `json:"sweep_threshold"`
	// Relevance and kinds, through the product's lane and kind rules.
	Relevance Scores  `json:"relevance"`
	Kind      float64 `json:"kind_accuracy"`
	// KindArgmax is the share of wanted messages whose likeliest kind
	// is the policy's, before the product's rule (ten approvals taught
	// kinds, probability at least 0.6) is applied.
	KindArgmax float64 `json:"kind_argmax"`
	// BestScreen is the screen_below (swept from 0.01 to 0.5) that shows
	// the most wanted mail with at most MaxShownUnwanted of shown cards
	// unwanted, with what it shows; 0 when no threshold does.
	BestScreen        float64 `json:"best_screen_below"`
	BestWantedShown   float64 `json:"best_wanted_shown"`
	BestShownUnwanted float64 `json:"best_shown_unwanted"`
	// Update is the time of one learning step in memory; Predict the
	// predictions per CPU second in memory.
	Update  Latency `json:"update"`
	Predict float64 `json:"predict_per_core_s"`
	// Features and Bytes are the model's size after one fold's training.
	Features int   `json:"features"`
	Bytes    int64 `json:"bytes"`
	// UndoDelta is the largest change of any probability on the test
	// messages left by learning one decision and then unlearning it: 0
	// when undo is exact.
	UndoDelta float64 `json:"undo_delta"`
}

// algo is one learner under comparison.
type algo interface {
	predict(fs []learn.Feature) guess
	learn(fs []learn.Feature, l learn.Label, sign float64)
	size() (int, int64)
}

type guess struct {
	spam, approve float64 // -1: cannot tell
	kind          string
	kindP, kindN  float64
}

// rf is the product's model on a table in memory.
type rf struct {
	m   learn.Model
	t   learn.MemTable
	now time.Time
}

func newRF(p learn.Params) *rf {
	return &rf{m: learn.Model{Params: p, Epoch: start}, t: learn.MemTable{}, now: start}
}

func (r *rf) predict(fs []learn.Feature) guess {
	p, _ := r.m.Predict(r.t, fs, r.now)
	return guess{spam: p.Spam.P, approve: p.Approve.P, kind: p.Kind.Kind, kindP: p.Kind.P, kindN: p.Kind.Decisions}
}

func (r *rf) learn(fs []learn.Feature, l learn.Label, sign float64) {
	h := learn.Hashes(fs)
	r.t.Apply(h, l.Vec(), sign)
	r.m.Totals = r.m.Totals.Add(l.Vec(), len(h), sign)
}

func (r *rf) size() (int, int64) { return len(r.t), int64(len(r.t)) * (8 + 4*learn.NClasses) }

// lr is online logistic regression.
type lr struct {
	m     learn.LogReg
	kinds float64
}

func (r *lr) predict(fs []learn.Feature) guess {
	s, a, k, kp := r.m.Predict(fs)
	return guess{spam: s, approve: a, kind: k, kindP: kp, kindN: r.kinds}
}

func (r *lr) learn(fs []learn.Feature, l learn.Label, sign float64) {
	r.m.Learn(fs, l, sign)
	if l.Kind != "" {
		r.kinds += sign
	}
}

func (r *lr) size() (int, int64) {
	return r.m.Features(), int64(r.m.Features() * learn.LogRegRowBytes)
}

// prepared is a mail as the learner sees it.
type prepared struct {
	j    judged
	fs   []learn.Feature
	heur triage.Verdict
}

func prepare(ctx context.Context, js []judged) ([]prepared, error) {
	pipe, err := triage.New(triage.Config{Scout: "eval"})
	if err != nil {
		return nil, err
	}
	const salt = 0x5c0075e4a1
	out := make([]prepared, 0, len(js))
	for _, j := range js {
		m, err := mailtext.Parse(j.mail.Raw, mailtext.Options{BodyRunes: BodyRunes})
		if err != nil {
			continue
		}
		corpus.Neutralize(&m)
		d, err := pipe.Triage(ctx, m)
		if err != nil {
			return nil, err
		}
		out = append(out, prepared{j: j, fs: learn.Extract(learnItem(m), salt), heur: d.Verdict})
	}
	return out, nil
}

// sim replays the product's rules around a learner in memory.
type sim struct {
	set scouts.LearnSettings
	a   algo
	// decisions, spam and ham count what was taught, as LearnState does.
	decisions, spam, ham int
	durations            []time.Duration
}

// teaching is what the product teaches for the user's final decision on
// a mail: engine.TeachingOf the suggestion as the decision leaves it.
func teaching(j judged) learn.Label {
	s := scouts.Suggestion{Status: scouts.StatusRejected, Lane: scouts.LaneInbox, ResolvedBy: "user"}
	switch {
	case j.mail.Spam:
		s.Lane = scouts.LaneSpam
	case j.wanted:
		s.Status, s.ResolvedKind = scouts.StatusApproved, j.kind
	}
	return engine.TeachingOf(s)
}

func (s *sim) teach(fs []learn.Feature, l learn.Label) {
	t0 := time.Now()
	s.a.learn(fs, l, 1)
	s.durations = append(s.durations, time.Since(t0))
	s.decisions++
	if l.Spam {
		s.spam++
	}
	if l.Ham {
		s.ham++
	}
}

// MaxShownUnwanted is the share of unwanted cards the relevance sweep
// allows (the target).
const MaxShownUnwanted = 0.10

// assess mirrors the engine's: the heuristics' lane first, then learned
// spam, then screening; the learned kind once ten approvals taught kinds.
func (s *sim) assess(p prepared, g guess) (scouts.Lane, scouts.EntityKind) {
	lane := scouts.LaneInbox
	switch p.heur {
	case triage.Spam:
		lane = scouts.LaneSpam
	case triage.Skip:
		lane = scouts.LaneScreened
	}
	spamReady := s.spam >= s.set.MinSpam && s.ham >= s.set.MinSpam && s.decisions >= s.set.ColdStart
	switch {
	case lane == scouts.LaneSpam:
	case spamReady && g.spam >= s.set.SpamAbove:
		lane = scouts.LaneSpam
	case s.decisions >= s.set.ColdStart && g.approve >= 0 && g.approve < s.set.ScreenBelow:
		lane = scouts.LaneScreened
	}
	kind := scouts.EntityTask
	if g.kind != "" && g.kindN >= 10 && g.kindP >= 0.6 {
		kind = scouts.EntityKind(g.kind)
	}
	return lane, kind
}

func (s *sim) guesses(test []prepared) []guess {
	gs := make([]guess, len(test))
	for i, p := range test {
		gs[i] = s.a.predict(p.fs)
	}
	return gs
}

func (s *sim) score(test []prepared, gs []guess) Scores {
	items := make([]scored, len(test))
	for i, p := range test {
		lane, kind := s.assess(p, gs[i])
		items[i] = scored{j: p.j, s: scouts.Suggestion{Lane: lane, ProposedKind: kind}}
	}
	return scoresOf(items)
}

// bestScreen sweeps screen_below for the most wanted mail shown with at
// most MaxShownUnwanted of the shown cards unwanted.
func (s *sim) bestScreen(test []prepared, gs []guess) (threshold float64, best Scores) {
	keep := s.set.ScreenBelow
	defer func() { s.set.ScreenBelow = keep }()
	for t := 1; t <= 50; t++ {
		s.set.ScreenBelow = float64(t) / 100
		sc := s.score(test, gs)
		if sc.ShownUnwanted <= MaxShownUnwanted && sc.WantedShown > best.WantedShown {
			threshold, best = s.set.ScreenBelow, sc
		}
	}
	return threshold, best
}

// kindArgmax is the share of wanted messages whose likeliest kind is the
// policy's.
func kindArgmax(test []prepared, gs []guess) float64 {
	right, n := 0, 0
	for i, p := range test {
		if p.j.wanted {
			n++
			if gs[i].kind == string(p.j.kind) {
				right++
			}
		}
	}
	return ratio(right, n)
}

// algos are the contenders, each made fresh.
var algos = []struct {
	name string
	make func() algo
}{
	{"Robinson–Fisher (product)", func() algo { return newRF(learn.Params{}) }},
	{"online logistic regression", func() algo { return &lr{} }},
}

func runCompare(ctx context.Context, o Options, js []judged, k int) (Comparison, error) {
	o.progress("comparing the learners in memory")
	ps, err := prepare(ctx, js)
	if err != nil {
		return Comparison{}, err
	}
	relAfter, kindAfter := min(200, len(ps)/2), min(100, len(ps)/2)
	test := ps[max(o.Train, relAfter):]
	c := Comparison{Folds: k, RelevanceAfter: relAfter, KindAfter: kindAfter, Test: len(test)}
	for _, al := range algos {
		f := AlgoFigures{Name: al.name}
		// Spam alone, K folds.
		var samples []cvSample
		var durations []time.Duration
		for fold := range k {
			s := &sim{set: o.Settings, a: al.make()}
			for i, p := range ps {
				if i%k != fold {
					l := learn.Label{Spam: p.j.mail.Spam, Ham: !p.j.mail.Spam}
					if l.Ham {
						l.Approve, l.Kind = true, string(scouts.EntityTask)
					}
					s.teach(p.fs, l)
				}
			}
			durations = append(durations, s.durations...)
			if fold == 0 {
				f.Features, f.Bytes = s.a.size()
				t := make([]prepared, 0, len(ps)/k+1)
				for i, p := range ps {
					if i%k == fold {
						t = append(t, p)
					}
				}
				if f.Predict, err = rate(o.MinMeasure, len(t), func() error {
					for _, p := range t {
						s.a.predict(p.fs)
					}
					return nil
				}); err != nil {
					return c, err
				}
			}
			for i, p := range ps {
				if i%k == fold {
					g := s.a.predict(p.fs)
					samples = append(samples, cvSample{spam: p.j.mail.Spam, heur: p.heur == triage.Spam, p: g.spam,
						inBox: p.heur == triage.Spam || g.spam >= o.Settings.SpamAbove})
				}
			}
		}
		tp, fp, spam, ham := 0, 0, 0, 0
		for _, s := range samples {
			if s.spam {
				spam++
				if s.inBox {
					tp++
				}
			} else {
				ham++
				if s.inBox {
					fp++
				}
			}
		}
		f.SpamRecall, f.SpamFPR = ratio(tp, spam), ratio(fp, ham)
		f.SweepThreshold, f.SweepRecall, f.SweepFPR = sweep(samples, MaxFPR)
		f.Update = latency(durations)

		// The simulated user, online: kinds after kindAfter decisions,
		// relevance after relAfter.
		s := &sim{set: o.Settings, a: al.make()}
		kinds := func() {
			gs := s.guesses(test)
			f.Kind, f.KindArgmax = s.score(test, gs).KindAccuracy, kindArgmax(test, gs)
		}
		for i, p := range ps[:relAfter] {
			if i == kindAfter {
				kinds()
			}
			s.teach(p.fs, teaching(p.j))
		}
		if kindAfter >= relAfter {
			kinds()
		}
		gs := s.guesses(test)
		f.Relevance = s.score(test, gs)
		f.Relevance.Decisions = relAfter
		var best Scores
		f.BestScreen, best = s.bestScreen(test, gs)
		f.BestWantedShown, f.BestShownUnwanted = best.WantedShown, best.ShownUnwanted
		f.UndoDelta = undoDelta(s.a, ps[relAfter], test[:min(len(test), 200)])
		c.Algos = append(c.Algos, f)
	}
	return c, nil
}

// undoDelta learns one decision, unlearns it, and returns the largest
// change it left on the probabilities of probe.
func undoDelta(a algo, p prepared, probe []prepared) float64 {
	before := make([]guess, len(probe))
	for i, q := range probe {
		before[i] = a.predict(q.fs)
	}
	l := teaching(p.j)
	a.learn(p.fs, l, 1)
	a.learn(p.fs, l, -1)
	var d float64
	for i, q := range probe {
		g := a.predict(q.fs)
		d = math.Max(d, math.Max(math.Abs(g.spam-before[i].spam), math.Abs(g.approve-before[i].approve)))
		if g.kind == before[i].kind {
			d = math.Max(d, math.Abs(g.kindP-before[i].kindP))
		} else {
			d = math.Max(d, 1)
		}
	}
	return d
}

// Print writes the comparison.
func (c Comparison) Print(w io.Writer) {
	fmt.Fprintf(w, "Learners compared in memory on the same features and decisions (spam: %d-fold cross-validation; relevance after %d decisions and kinds after %d, on %d test messages):\n",
		c.Folds, c.RelevanceAfter, c.KindAfter, c.Test)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	names := []string{""}
	for _, a := range c.Algos {
		names = append(names, a.Name)
	}
	fmt.Fprintln(tw, strings.Join(names, "\t")+"\t")
	row := func(label string, f func(a AlgoFigures) string) {
		cells := []string{label}
		for _, a := range c.Algos {
			cells = append(cells, f(a))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("spam recall / FPR at p ≥ threshold", func(a AlgoFigures) string { return pct(a.SpamRecall) + " / " + pct2(a.SpamFPR) })
	row("spam recall at FPR ≤ 0.2 % (swept)", func(a AlgoFigures) string {
		return pct(a.SweepRecall) + " / " + pct2(a.SweepFPR) + " (p ≥ " + threshold(a.SweepThreshold) + ")"
	})
	row("wanted shown / shown unwanted", func(a AlgoFigures) string {
		return pct(a.Relevance.WantedShown) + " / " + pct(a.Relevance.ShownUnwanted)
	})
	row("spam recall / FPR while relevance-trained", func(a AlgoFigures) string {
		return pct(a.Relevance.SpamRecall) + " / " + pct2(a.Relevance.SpamFPR)
	})
	row("best wanted shown with ≤ 10 % shown unwanted", func(a AlgoFigures) string {
		if a.BestScreen == 0 {
			return "none"
		}
		return fmt.Sprintf("%s / %s (screen below %.2f)", pct(a.BestWantedShown), pct(a.BestShownUnwanted), a.BestScreen)
	})
	row("wanted filed as spam", func(a AlgoFigures) string { return fmt.Sprint(a.Relevance.WantedInSpam) })
	row("kind right (product rule / likeliest kind)", func(a AlgoFigures) string { return pct(a.Kind) + " / " + pct(a.KindArgmax) })
	row("update, median / p99", func(a AlgoFigures) string { return us(a.Update.Median) + " / " + us(a.Update.P99) })
	row("predictions per CPU second", func(a AlgoFigures) string { return fmt.Sprintf("%.0f", a.Predict) })
	row("model after one fold's training", func(a AlgoFigures) string { return fmt.Sprintf("%d features, %s", a.Features, size(a.Bytes)) })
	row("largest change left by learn + unlearn", func(a AlgoFigures) string {
		if a.UndoDelta == 0 {
			return "0 (exact)"
		}
		return fmt.Sprintf("%.2g", a.UndoDelta)
	})
	tw.Flush()
}
