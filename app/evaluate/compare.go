package evaluate

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
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

// Comparison measures learners against each other in memory, on the same
// features, the same lane rules and the same simulated person, on mail
// they have never seen: the messages are ordered by their Date header, the
// earlier half is replayed with a realistic user deciding what the
// learner shows, and the later half is only scored (issue 19).
type Comparison struct {
	// Train and Test are the sizes of the two halves; Split says how they
	// were cut.
	Split string `json:"split"`
	Train int    `json:"train"`
	Test  int    `json:"test"`
	// TestFrom is the Date of the first message of the later half.
	TestFrom time.Time `json:"test_from"`
	// Batch is how many messages arrive between two looks of the user;
	// a card left alone is taken as confirmed after the next batch.
	Batch int `json:"batch"`
	// ImplicitWeight is what such a silence weighs against an explicit
	// decision (1).
	ImplicitWeight float64       `json:"implicit_weight"`
	Algos          []AlgoFigures `json:"algorithms"`
}

// AlgoFigures are one learner's figures on the later half.
type AlgoFigures struct {
	Name string `json:"name"`
	// Threshold is the spam threshold used, chosen on the earlier half
	// only (see compareOne).
	Threshold float64 `json:"spam_threshold"`
	// Figures on the later half.
	SpamCaught  float64 `json:"spam_caught"`
	LegitToSpam float64 `json:"legit_to_spam"`
	HardToSpam  float64 `json:"hard_ham_to_spam"`
	JunkInInbox float64 `json:"junk_in_inbox"`
	WantedShown float64 `json:"wanted_shown"`
	KindRight   float64 `json:"kind_right"`
	LegitFP     int     `json:"legit_fp"`
	HardFP      int     `json:"hard_fp"`
	// The same on the earlier half, as the user saw it while teaching.
	TrainSpamCaught  float64 `json:"train_spam_caught"`
	TrainLegitToSpam float64 `json:"train_legit_to_spam"`
	// ValSpamCaught and ValLegitToSpam are what chose the threshold: the
	// last 40 % of the earlier half scored after the user taught the rest.
	ValSpamCaught  float64 `json:"validation_spam_caught"`
	ValLegitToSpam float64 `json:"validation_legit_to_spam"`
	// Taught counts what the user taught: explicit spam reports, spam
	// confirmed by silence, and all teachings.
	TaughtSpam, SilentSpam, Taught int `json:"-"`
	// Update is the time of one learning step in memory; Predict the
	// predictions per CPU second in memory.
	Update  Latency `json:"update"`
	Predict float64 `json:"predict_per_core_s"`
	// UndoDelta is the largest change of any probability on test messages
	// left by learning one decision and then undoing it: 0 when exact.
	UndoDelta float64 `json:"undo_delta"`
}

// Contenders are the learners compared; the last two are the product's.
var contenders = []contender{
	{name: "Robinson–Fisher before issue 19 (identity ×10 everywhere)", make: func() learner {
		return newCounts(learn.Params{SpamIdentityWeight: 10, FlatIdentity: true}, false)
	}},
	{name: "RF, identity ×10 for relevance, ×1 for spam", make: func() learner { return newCounts(learn.Params{SpamIdentityWeight: 1}, false) }},
	{name: "RF, spam identity up to ×10 by purity", make: func() learner { return newCounts(learn.Params{SpamIdentityWeight: 10}, false) }},
	{name: "RF, purity + sender within list", make: func() learner { return newCounts(learn.Params{SpamIdentityWeight: 10}, true) }},
	{name: "logistic regression alone (words, every head)", make: func() learner { return &lrAlone{} }},
	{name: "content alone (LR, words + 4-grams)", make: func() learner { return newMixed(1, true, 0, 1) }},
	{name: "content alone (LR, words)", make: func() learner { return newMixed(2, false, 0, 1) }},
	{name: "mix 0.2·RF + 0.8·content (words + 4-grams)", make: func() learner { return newMixed(1, true, 0.2, 0.8) }},
	{name: "mix 0.2·RF + 0.8·content (words)", make: func() learner { return newMixed(2, false, 0.2, 0.8) }},
	{name: "mix (words), screened mail to Spam from 0.5", make: func() learner { return newMixed(2, false, 0.2, 0.8) }, screenedSpam: 0.5},
	{name: "content model on, if silence in Screened taught it not-spam", make: func() learner { return newContentLearner(false) }, silenceHam: true},
	{name: "content model on, no familiar senders", make: func() learner { return newContentLearner(true) }, silenceHam: true},
	{name: "the same, the scout's spam threshold", make: func() learner { return newContentLearner(true) }, silenceHam: true, fixed: true},
	{name: "counts only (the product before: learn.Params{CountsOnly: true})", make: func() learner { return newCounts(learn.Params{}, true) }, silenceHam: true},
	{name: "counts only, the scout's spam threshold", make: func() learner { return newCounts(learn.Params{}, true) }, silenceHam: true, fixed: true},
	{name: "counts only, familiar senders kept out of Spam", make: func() learner { return newCounts(learn.Params{}, true) }, silenceHam: true, familiar: engine.FamiliarAfter},
	{name: "content model, familiar after 2 mails", make: func() learner { return newContentLearner(true) }, silenceHam: true, familiar: 2},
	{name: "product: content model, familiar senders", make: func() learner { return newContentLearner(true) }, silenceHam: true, familiar: engine.FamiliarAfter},
	{name: "product, the scout's spam threshold", make: func() learner { return newContentLearner(true) }, silenceHam: true, familiar: engine.FamiliarAfter, fixed: true},
}

type contender struct {
	name string
	make func() learner
	// screenedSpam, when above 0, files as spam mail that would be
	// screened anyway from this spam probability.
	screenedSpam float64
	// silenceHam: a card left in Screened teaches "not spam" as well as
	// "not wanted", as engine.Teaching has it.
	silenceHam bool
	// fixed keeps the scout's spam threshold (Options.Settings) instead
	// of choosing one.
	fixed bool
	// familiar, when above 0, keeps out of Spam (in Screened) mail the
	// learner alone would file there whose sender or list had already
	// sent that many mails, none of which the person marked as spam.
	familiar int
}

// learner is one model under comparison.
type learner interface {
	predict(p *prepared) guess
	// learn teaches l with weight w (a negative w takes it back where
	// the model can subtract).
	learn(p *prepared, l learn.Label, w float64)
	// undo takes back the last lesson exactly, as the product would.
	undo(p *prepared, l learn.Label, w float64)
}

type guess struct {
	spam, approve float64 // -1: cannot tell
	kind          string
	kindP, kindN  float64
}

// counts is Robinson–Fisher on a table in memory.
type counts struct {
	m          learn.Model
	t          learn.MemTable
	listSender bool
}

var epoch = time.Date(2002, 1, 1, 0, 0, 0, 0, time.UTC)

func newCounts(p learn.Params, listSender bool) *counts {
	return &counts{m: learn.Model{Params: p, Epoch: epoch}, t: learn.MemTable{}, listSender: listSender}
}

func (r *counts) features(p *prepared) []learn.Feature {
	if r.listSender {
		return p.fs
	}
	return p.noListSender
}

func (r *counts) predict(p *prepared) guess {
	pr, _ := r.m.Predict(r.t, r.features(p), epoch)
	return guess{spam: pr.Spam.P, approve: pr.Approve.P, kind: pr.Kind.Kind, kindP: pr.Kind.P, kindN: pr.Kind.Decisions}
}

func (r *counts) learn(p *prepared, l learn.Label, w float64) {
	h := learn.Hashes(r.features(p))
	r.t.Apply(h, l.Vec(), w)
	r.m.Totals = r.m.Totals.Add(l.Vec(), len(h), w)
}

func (r *counts) undo(p *prepared, l learn.Label, w float64) { r.learn(p, l, -w) }

// lrAlone is online logistic regression for every head (learn.LogReg).
type lrAlone struct {
	m     learn.LogReg
	kinds float64
}

func (r *lrAlone) predict(p *prepared) guess {
	s, a, k, kp := r.m.Predict(p.fs)
	return guess{spam: s, approve: a, kind: k, kindP: kp, kindN: r.kinds}
}

func (r *lrAlone) learn(p *prepared, l learn.Label, w float64) {
	r.m.Learn(p.fs, l, math.Copysign(1, w))
	if l.Kind != "" {
		r.kinds += math.Copysign(1, w)
	}
}

// undo is LogReg's approximate step against the gradient: it cannot do
// better.
func (r *lrAlone) undo(p *prepared, l learn.Label, w float64) { r.learn(p, l, -w) }

// mixed is the counts for relevance and kinds, and for spam the counts'
// probability combined with the content model's (learn.Mix); a = 0 is the
// content model alone.
type mixed struct {
	rf       *counts
	c        *learn.Content
	grams    bool
	a, b     float64
	examples []learn.ContentExample
	// explicitHam leaves out of the content model the not-spam that only
	// silence taught (learn.ContentLearns).
	explicitHam bool
}

func newMixed(rate float64, grams bool, a, b float64) *mixed {
	return &mixed{rf: newCounts(learn.Params{}, true), c: learn.NewContent(rate), grams: grams, a: a, b: b}
}

// newContentLearner is the desktop's learner: learn.Params' defaults, the
// content model
// over the stored feature hashes (learn.HashIDs) mixed in with the
// defaults' weights.
func newContentLearner(explicitHam bool) *mixed {
	m := newMixed(0, false, 0, 0)
	m.a, m.b = learn.DefaultMix()
	m.explicitHam = explicitHam
	return m
}

func (r *mixed) ids(p *prepared) []uint32 {
	if r.grams {
		return p.grams
	}
	return p.words
}

func (r *mixed) predict(p *prepared) guess {
	g := r.rf.predict(p)
	z, ok := r.c.Logit(r.ids(p))
	if r.a == 0 {
		g.spam = -1
		if ok {
			g.spam = 1 / (1 + math.Exp(-r.b*z))
		}
		return g
	}
	g.spam = learn.Mix(g.spam, z, ok, r.a, r.b)
	return g
}

func (r *mixed) learn(p *prepared, l learn.Label, w float64) {
	r.rf.learn(p, l, w)
	if r.explicitHam && !learn.ContentLearns(l, w) {
		return
	}
	if l.Spam || l.Ham {
		e := learn.ContentExample{IDs: r.ids(p), Spam: l.Spam, Weight: w}
		r.examples = append(r.examples, e)
		if r.c.Extends([]learn.ContentExample{e}) {
			r.c.Learn(e)
		} else {
			r.c.Train(r.examples)
		}
	}
}

// undo retrains the content model from the examples without the last
// one, as the desktop does after an undo.
func (r *mixed) undo(p *prepared, l learn.Label, w float64) {
	r.rf.learn(p, l, -w)
	if r.explicitHam && !learn.ContentLearns(l, w) {
		return
	}
	if l.Spam || l.Ham {
		r.examples = r.examples[:len(r.examples)-1]
		r.c.Train(r.examples)
	}
}

// prepared is a mail as the learners see it.
type prepared struct {
	j            judged
	date         time.Time
	hard         bool
	fs           []learn.Feature
	noListSender []learn.Feature
	words, grams []uint32
	heur         triage.Verdict
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
		it := learnItem(m)
		fs := learn.Extract(it, salt)
		p := prepared{j: j, date: m.Date, hard: strings.Contains(j.mail.Ref, "hard-ham"), fs: fs, heur: d.Verdict}
		p.noListSender = slices.DeleteFunc(slices.Clone(fs), func(f learn.Feature) bool { return f.Group == learn.GroupListSender })
		p.words = learn.ContentIDs(fs)
		p.grams = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(p.words), learn.Grams(it.Subject+"\n"+it.Body, salt)...))))
		out = append(out, p)
	}
	return out, nil
}

// splitByDate orders the mail by Date (mail without one first, in arrival
// order) and cuts it in two halves.
func splitByDate(ps []prepared) (train, test []prepared) {
	slices.SortStableFunc(ps, func(a, b prepared) int { return a.date.Compare(b.date) })
	n := len(ps) / 2
	return ps[:n], ps[n:]
}

// replay is one learner's run: the user over the earlier half, then the
// later half scored.
type replay struct {
	set          scouts.LearnSettings
	screenedSpam float64
	silenceHam   bool
	l            learner
	// decisions, spam and ham count what was taught, as LearnState does.
	decisions, spam, ham int
	durations            []time.Duration
	taughtSpam, silent   int
	// familiar, seen and reported: see contender.familiar. seen counts
	// every arrival of a sender or list, reported those the person
	// marked as spam.
	familiar int
	seen     map[uint64]int
	reported map[uint64]bool
}

// identities are the hashes of an item's sender and list.
func identities(p *prepared) []uint64 {
	var out []uint64
	for _, f := range p.fs {
		if f.Group == learn.GroupSender || f.Group == learn.GroupList {
			out = append(out, f.Hash)
		}
	}
	return out
}

// isFamiliar reports whether p's sender or list has sent r.familiar mails
// before and the person never marked one as spam.
func (r *replay) isFamiliar(p *prepared) bool {
	if r.familiar <= 0 {
		return false
	}
	ids := identities(p)
	for _, h := range ids {
		if r.reported[h] {
			return false
		}
	}
	for _, h := range ids {
		if r.seen[h] >= r.familiar {
			return true
		}
	}
	return false
}

// report records that p's sender and list sent spam the person reported
// or left in Spam: they are familiar no more.
func (r *replay) report(p *prepared) {
	if r.familiar <= 0 {
		return
	}
	for _, h := range identities(p) {
		r.reported[h] = true
	}
}

// arrived counts p's sender and list as seen once more.
func (r *replay) arrived(p *prepared) {
	if r.familiar <= 0 {
		return
	}
	for _, h := range identities(p) {
		r.seen[h]++
	}
}

func (r *replay) teach(p *prepared, l learn.Label, w float64) {
	t0 := time.Now()
	r.l.learn(p, l, w)
	r.durations = append(r.durations, time.Since(t0))
	r.decisions++
	if l.Spam {
		r.spam++
	}
	if l.Ham {
		r.ham++
	}
}

// lane mirrors the engine's: the heuristics' lane first, then learned
// spam, then screening; the learned kind once ten approvals taught kinds.
func (r *replay) lane(p *prepared, g guess) (scouts.Lane, scouts.EntityKind) {
	lane := scouts.LaneInbox
	switch p.heur {
	case triage.Spam:
		lane = scouts.LaneSpam
	case triage.Skip:
		lane = scouts.LaneScreened
	}
	spamReady := r.spam >= r.set.MinSpam && r.ham >= r.set.MinSpam && r.decisions >= r.set.ColdStart
	screen := r.decisions >= r.set.ColdStart && g.approve >= 0 && g.approve < r.set.ScreenBelow
	switch {
	case lane == scouts.LaneSpam:
	case spamReady && g.spam >= r.set.SpamAbove && r.isFamiliar(p):
		lane = scouts.LaneScreened
	case spamReady && g.spam >= r.set.SpamAbove:
		lane = scouts.LaneSpam
	case spamReady && screen && r.screenedSpam > 0 && g.spam >= r.screenedSpam:
		lane = scouts.LaneSpam
	case screen:
		lane = scouts.LaneScreened
	}
	kind := scouts.EntityTask
	if g.kind != "" && g.kindN >= 10 && g.kindP >= 0.6 {
		kind = scouts.EntityKind(g.kind)
	}
	return lane, kind
}

// The realistic user's labels.
var (
	spamLabel   = learn.Label{Spam: true}
	rejectLabel = learn.Label{Reject: true, Ham: true}
)

func approveLabel(j judged) learn.Label {
	return learn.Label{Approve: true, Ham: true, Kind: string(j.kind)}
}

// explicit is what the realistic user does with a card in lane: every
// Inbox card is decided; in Screened and Spam only mistakes are rescued
// (wanted mail brought back and approved, legitimate mail brought back
// from Spam and decided). ok is false when the user leaves the card alone.
func explicit(j judged, lane scouts.Lane) (l learn.Label, ok bool) {
	switch {
	case lane == scouts.LaneInbox && j.mail.Spam:
		return spamLabel, true
	case j.wanted:
		return approveLabel(j), true
	case lane == scouts.LaneInbox || (lane == scouts.LaneSpam && !j.mail.Spam):
		return rejectLabel, true
	}
	return learn.Label{}, false
}

// silence is what a card left alone in its lane teaches once its grace
// period is over: the lane was right. Spam left in Spam confirms spam;
// mail left in Screened confirms that it was not wanted and, with ham (as
// engine.Teaching has it), that it was not spam either.
func silence(lane scouts.Lane, ham bool) learn.Label {
	if lane == scouts.LaneSpam {
		return spamLabel
	}
	return learn.Label{Reject: true, Ham: ham}
}

type pending struct {
	p *prepared
	l learn.Label
}

// train replays the earlier half in batches: the user looks after each
// batch, and what was left alone in the batch before is confirmed.
func (r *replay) train(ps []prepared, batch int, implicit float64) (counts laneCounts) {
	var waiting, next []pending
	for i := range ps {
		p := &ps[i]
		g := r.l.predict(p)
		lane, _ := r.lane(p, g)
		r.arrived(p)
		counts.add(p, lane)
		if l, ok := explicit(p.j, lane); ok {
			r.teach(p, l, 1)
			if l.Spam {
				r.taughtSpam++
				r.report(p)
			}
		} else {
			next = append(next, pending{p, silence(lane, r.silenceHam)})
		}
		if (i+1)%batch == 0 || i == len(ps)-1 {
			for _, w := range waiting {
				if implicit > 0 {
					r.teach(w.p, w.l, implicit)
					if w.l.Spam {
						r.silent++
						r.report(w.p)
					}
				}
			}
			waiting, next = next, nil
		}
	}
	return counts
}

// laneCounts tallies where mail went.
type laneCounts struct {
	spam, spamIn, legit, legitIn, hard, hardIn int
	inbox, junkInbox, wanted, wantedShown      int
	kindRight                                  int
}

func (c *laneCounts) add(p *prepared, lane scouts.Lane) {
	inSpam := lane == scouts.LaneSpam
	switch {
	case p.j.mail.Spam:
		c.spam++
		if inSpam {
			c.spamIn++
		}
	case p.hard:
		c.hard++
		if inSpam {
			c.hardIn++
		}
	default:
		c.legit++
		if inSpam {
			c.legitIn++
		}
	}
	if lane == scouts.LaneInbox {
		c.inbox++
		if !p.j.wanted {
			c.junkInbox++
		}
	}
	if p.j.wanted {
		c.wanted++
		if lane == scouts.LaneInbox {
			c.wantedShown++
		}
	}
}

func (ct contender) replay(set scouts.LearnSettings, spamAbove float64) *replay {
	set.SpamAbove = spamAbove
	r := &replay{set: set, screenedSpam: ct.screenedSpam, silenceHam: ct.silenceHam, l: ct.make(), familiar: ct.familiar}
	if r.familiar > 0 {
		r.seen, r.reported = map[uint64]int{}, map[uint64]bool{}
	}
	return r
}

// score places ps with the model as it stands, nobody deciding.
func (r *replay) score(ps []prepared) laneCounts {
	var c laneCounts
	for i := range ps {
		lane, kind := r.lane(&ps[i], r.l.predict(&ps[i]))
		r.arrived(&ps[i])
		c.add(&ps[i], lane)
		if ps[i].j.wanted && kind == ps[i].j.kind {
			c.kindRight++
		}
	}
	return c
}

// thresholds are the spam thresholds each learner is tried at.
var thresholds = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995}

// Compare runs the comparison alone (judging the input with the policy).
func Compare(ctx context.Context, o Options) (Comparison, error) {
	if o.Settings == (scouts.LearnSettings{}) {
		o.Settings = scouts.DefaultLearnSettings()
	}
	if o.MinMeasure <= 0 {
		o.MinMeasure = defaultMeasure
	}
	return runCompare(ctx, o, judge(o.Input, o.Policy, o.Seed), 0)
}

// compareBatch and compareImplicit are the realistic user's rhythm: a
// look every 50 messages, and silence after a batch weighs half a
// decision.
const (
	compareBatch    = 50
	compareImplicit = 0.5
)

func runCompare(ctx context.Context, o Options, js []judged, _ int) (Comparison, error) {
	o.progress("comparing the learners in memory (time split, realistic user)")
	ps, err := prepare(ctx, js)
	if err != nil {
		return Comparison{}, err
	}
	train, test := splitByDate(ps)
	c := Comparison{Split: "date", Train: len(train), Test: len(test), Batch: compareBatch, ImplicitWeight: compareImplicit}
	if len(test) > 0 {
		c.TestFrom = test[0].date
	}
	for _, ct := range contenders {
		o.progress("  %s", ct.name)
		f, err := compareOne(o, ct, train, test)
		if err != nil {
			return c, err
		}
		c.Algos = append(c.Algos, f)
	}
	return c, nil
}

// compareOne chooses the learner's spam threshold on the earlier half
// alone, the way the later half will test it: for each threshold of the
// grid, the user's replay of the first 60 % of the earlier half, then the
// remaining 40 % scored with nobody deciding; the lowest threshold that
// sent at most MaxFPR of the legitimate mail there to Spam wins. Then the
// whole earlier half is replayed at that threshold and the later half
// scored with the model it left.
func compareOne(o Options, ct contender, train, test []prepared) (AlgoFigures, error) {
	f := AlgoFigures{Name: ct.name, Threshold: thresholds[len(thresholds)-1]}
	cut := len(train) * 6 / 10
	ts := thresholds
	if ct.fixed {
		ts = []float64{o.Settings.SpamAbove}
	}
	for _, t := range ts {
		r := ct.replay(o.Settings, t)
		r.train(slices.Clone(train[:cut]), compareBatch, compareImplicit)
		vc := r.score(train[cut:])
		o.progress("  %s, spam ≥ %.3f, on the earlier part's last 40 %%: spam %d of %d, legitimate %d of %d, hard ham %d of %d",
			ct.name, t, vc.spamIn, vc.spam, vc.legitIn, vc.legit, vc.hardIn, vc.hard)
		if ratio(vc.legitIn, vc.legit) <= MaxFPR || ct.fixed {
			f.Threshold = t
			f.ValSpamCaught, f.ValLegitToSpam = ratio(vc.spamIn, vc.spam), ratio(vc.legitIn, vc.legit)
			break
		}
	}
	best := ct.replay(o.Settings, f.Threshold)
	bestTrain := best.train(slices.Clone(train), compareBatch, compareImplicit)
	r := best
	f.TrainSpamCaught, f.TrainLegitToSpam = ratio(bestTrain.spamIn, bestTrain.spam), ratio(bestTrain.legitIn, bestTrain.legit)
	f.TaughtSpam, f.SilentSpam, f.Taught = r.taughtSpam, r.silent, r.decisions
	f.Update = latency(r.durations)
	tc := r.score(test)
	f.SpamCaught, f.LegitToSpam, f.HardToSpam = ratio(tc.spamIn, tc.spam), ratio(tc.legitIn, tc.legit), ratio(tc.hardIn, tc.hard)
	f.LegitFP, f.HardFP = tc.legitIn, tc.hardIn
	f.JunkInInbox, f.WantedShown = ratio(tc.junkInbox, tc.inbox), ratio(tc.wantedShown, tc.wanted)
	f.KindRight = ratio(tc.kindRight, tc.wanted)
	var err error
	if f.Predict, err = rate(o.MinMeasure, len(test), func() error {
		for i := range test {
			r.l.predict(&test[i])
		}
		return nil
	}); err != nil {
		return f, err
	}
	f.UndoDelta = undoDelta(r.l, &test[0], test[:min(len(test), 200)])
	return f, nil
}

// undoDelta learns one decision, undoes it, and returns the largest
// change it left on the probabilities of probe.
func undoDelta(a learner, p *prepared, probe []prepared) float64 {
	before := make([]guess, len(probe))
	for i := range probe {
		before[i] = a.predict(&probe[i])
	}
	l := spamLabel
	if !p.j.mail.Spam {
		l = rejectLabel
	}
	a.learn(p, l, 1)
	a.undo(p, l, 1)
	var d float64
	for i := range probe {
		g := a.predict(&probe[i])
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
	fmt.Fprintf(w, "Learners compared in memory (split by Date: the user decides the earlier %d messages — every Inbox card, only mistakes in Screened and Spam, silence confirming after the next batch of %d at weight %.1f — and the later %d, from %s, are scored; thresholds tuned on the earlier half):\n",
		c.Train, c.Batch, c.ImplicitWeight, c.Test, c.TestFrom.Format("2 Jan 2006"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "learner\tspam ≥\tspam caught\tlegit→Spam\thard-ham→Spam\tjunk in Inbox\twanted shown\tkind right\tspam taught (told / silent)\tundo\tpredict/CPU s\t")
	for _, a := range c.Algos {
		undo := "exact"
		if a.UndoDelta != 0 {
			undo = fmt.Sprintf("off %.2g", a.UndoDelta)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%d)\t%s (%d)\t%s\t%s\t%s\t%d / %d\t%s\t%.0f\t\n", a.Name, threshold(a.Threshold),
			pct(a.SpamCaught), pct2(a.LegitToSpam), a.LegitFP, pct(a.HardToSpam), a.HardFP, pct(a.JunkInInbox), pct(a.WantedShown),
			pct(a.KindRight), a.TaughtSpam, a.SilentSpam, undo, a.Predict)
	}
	tw.Flush()
}
