package evaluate

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// MaxFPR is the false-positive rate the threshold sweep stays within.
const MaxFPR = 0.002

// SpamCV is K-fold cross-validation of spam alone through the product:
// every training message is decided spam (mark as spam) or not (approved),
// then the held-back fold arrives and is scored.
type SpamCV struct {
	Folds    int `json:"folds"`
	Messages int `json:"messages"`
	Spam     int `json:"spam"`
	Ham      int `json:"ham"`
	// At the product's threshold: the Spam lane (the learner's
	// probability at least spam_above, or the heuristics' verdict).
	Threshold      float64 `json:"threshold"`
	TP, FP, FN, TN int     `json:"-"`
	Recall         float64 `json:"recall"`
	FPR            float64 `json:"fpr"`
	Precision      float64 `json:"precision"`
	F1             float64 `json:"f1"`
	// The best recall whose false-positive rate is at most MaxFPR, over
	// every threshold on the learner's probability (the heuristics' spam
	// verdicts always count as spam); the threshold is -1 when only the
	// heuristics' verdicts stay within it.
	SweepThreshold float64 `json:"sweep_threshold"`
	SweepRecall    float64 `json:"sweep_recall"`
	SweepFPR       float64 `json:"sweep_fpr"`
	// Update is the time of every decision call over all folds.
	Update Latency `json:"update"`
	// Growth is the learner's size as the first fold's training grows;
	// At10k extrapolates it to 10,000 decisions (Heaps' law fitted on
	// Growth for the features, linear for the per-item hashes).
	Growth []Footprint `json:"growth"`
	At10k  Footprint   `json:"at_10k_extrapolated"`
}

// cvSample is one scored message of a test fold.
type cvSample struct {
	spam  bool
	heur  bool    // the heuristics said spam
	p     float64 // the learner's spam probability, -1 when unknown
	inBox bool    // ended in the Spam lane
}

func runSpamCV(ctx context.Context, o Options, js []judged) (SpamCV, error) {
	k := o.SpamCV
	cv := SpamCV{Folds: k, Messages: len(js), Threshold: o.Settings.SpamAbove}
	var samples []cvSample
	var durations []time.Duration
	for f := range k {
		o.progress("spam cross-validation: fold %d of %d", f+1, k)
		var train, test []judged
		for i, j := range js {
			if i%k == f {
				test = append(test, j)
			} else {
				train = append(train, j)
			}
		}
		s, ds, growth, err := cvFold(ctx, o, f, train, test)
		if err != nil {
			return cv, err
		}
		samples = append(samples, s...)
		durations = append(durations, ds...)
		if f == 0 {
			cv.Growth = growth
		}
	}
	for _, s := range samples {
		switch {
		case s.spam && s.inBox:
			cv.TP++
		case s.inBox:
			cv.FP++
		case s.spam:
			cv.FN++
		default:
			cv.TN++
		}
	}
	cv.Spam, cv.Ham = cv.TP+cv.FN, cv.FP+cv.TN
	cv.Recall, cv.FPR, cv.Precision = ratio(cv.TP, cv.Spam), ratio(cv.FP, cv.Ham), ratio(cv.TP, cv.TP+cv.FP)
	if cv.Recall+cv.Precision > 0 {
		cv.F1 = 2 * cv.Recall * cv.Precision / (cv.Recall + cv.Precision)
	}
	cv.SweepThreshold, cv.SweepRecall, cv.SweepFPR = sweep(samples, MaxFPR)
	cv.Update = latency(durations)
	cv.At10k = extrapolate(cv.Growth, 10000)
	return cv, nil
}

// growthAt are the decision counts at which the first fold's learner is
// measured.
var growthAt = []int{100, 250, 500, 1000, 2000}

func cvFold(ctx context.Context, o Options, f int, train, test []judged) ([]cvSample, []time.Duration, []Footprint, error) {
	dir, err := os.MkdirTemp(o.Dir, fmt.Sprintf("cv%d-", f))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("evaluate: %w", err)
	}
	p, err := newProduct(ctx, dir, o.Settings, o.Seed)
	if err != nil {
		return nil, nil, nil, err
	}
	defer p.close()
	refs := make([]string, len(train))
	mails := make([]*Mail, len(train))
	for i, j := range train {
		refs[i], mails[i] = j.mail.Ref, j.mail
	}
	if err := p.arrive(ctx, refs, mails); err != nil {
		return nil, nil, nil, err
	}
	var ds []time.Duration
	var growth []Footprint
	for i, j := range train {
		s, ok, err := p.find(ctx, j.mail.Ref)
		if err != nil {
			return nil, nil, nil, err
		}
		if ok {
			p.tick(time.Minute)
			// Spam or not is all this user decides: ham is approved (the
			// kind is irrelevant to the spam model).
			jj := judged{mail: j.mail, wanted: !j.mail.Spam, kind: scouts.EntityTask}
			d, err := p.decide(ctx, s, jj)
			if err != nil {
				return nil, nil, nil, err
			}
			ds = append(ds, d...)
		}
		if f == 0 && (slices.Contains(growthAt, i+1) || i == len(train)-1) {
			fp, err := p.footprint(ctx)
			if err != nil {
				return nil, nil, nil, err
			}
			growth = append(growth, fp)
		}
	}
	refs = refs[:0]
	mails = mails[:0]
	for _, j := range test {
		refs, mails = append(refs, "test/"+j.mail.Ref), append(mails, j.mail)
	}
	if err := p.arrive(ctx, refs, mails); err != nil {
		return nil, nil, nil, err
	}
	var out []cvSample
	for i, j := range test {
		s, ok, err := p.find(ctx, refs[i])
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			continue
		}
		out = append(out, cvSample{spam: j.mail.Spam, heur: p.src.verdict(refs[i]) == triage.Spam,
			p: s.Assessment.Spam, inBox: s.Lane == scouts.LaneSpam})
	}
	return out, ds, growth, nil
}

// sweep finds the threshold on the learner's probability with the best
// recall at a false-positive rate of at most maxFPR; the threshold is -1
// when none beats the heuristics' verdicts alone (JSON has no infinity).
func sweep(samples []cvSample, maxFPR float64) (threshold, recall, fpr float64) {
	defer func() {
		if math.IsInf(threshold, 1) {
			threshold = -1
		}
	}()
	score := func(s cvSample) float64 {
		if s.heur {
			return math.Inf(1)
		}
		return s.p
	}
	sorted := slices.Clone(samples)
	slices.SortFunc(sorted, func(a, b cvSample) int {
		switch x, y := score(a), score(b); {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	spam, ham := 0, 0
	for _, s := range samples {
		if s.spam {
			spam++
		} else {
			ham++
		}
	}
	threshold = math.Inf(1)
	tp, fp := 0, 0
	for i := 0; i < len(sorted); {
		t := score(sorted[i])
		// Take every sample with this same score together.
		for ; i < len(sorted) && score(sorted[i]) == t; i++ {
			if sorted[i].spam {
				tp++
			} else {
				fp++
			}
		}
		if ratio(fp, ham) > maxFPR || t < 0 {
			break
		}
		threshold, recall, fpr = t, ratio(tp, spam), ratio(fp, ham)
	}
	return threshold, recall, fpr
}

// extrapolate fits features = a·decisions^b on the growth points (from 250
// decisions on, where the vocabulary's growth has settled into its power
// law) and the per-item hashes linearly, and evaluates both at n.
func extrapolate(growth []Footprint, n int) Footprint {
	var xs, ys []float64
	var last Footprint
	for _, g := range growth {
		if g.Decisions >= 250 && g.Features > 0 {
			xs, ys = append(xs, math.Log(float64(g.Decisions))), append(ys, math.Log(float64(g.Features)))
		}
		last = g
	}
	if len(xs) < 2 || last.Decisions == 0 || last.Features == 0 {
		return Footprint{}
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	b := sxy / sxx
	a := my - b*mx
	feats := int(math.Exp(a + b*math.Log(float64(n))))
	out := Footprint{Decisions: n, Features: feats, FeatureBytes: int64(float64(feats) * float64(last.FeatureBytes) / float64(last.Features))}
	if last.Items > 0 {
		out.Items = n
		out.ItemBytes = int64(float64(n) * float64(last.ItemBytes) / float64(last.Items))
	}
	return out
}
