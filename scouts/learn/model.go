package learn

import (
	"math"
	"slices"
	"time"
)

// Class indexes a count vector: what the decisions containing a feature
// taught. Spam/Ham feed the spam model, Approve/Reject the relevance model,
// the four kinds the kind model.
const (
	CSpam = iota
	CHam
	CApprove
	CReject
	CTask
	CNote
	CEvent
	CProject
	NClasses
)

// Kinds are the kind names, in class order from CTask.
var Kinds = [4]string{"task", "note", "event", "project"}

// Vec holds one count per class. Counts are stored scaled by the weight of
// the time they were learned (see Params.Weight), so that old decisions fade
// without ever rewriting the table.
type Vec [NClasses]float32

// Add returns v + w·d.
func (v Vec) Add(d Vec, w float64) Vec {
	for i := range v {
		v[i] = float32(float64(v[i]) + w*float64(d[i]))
		if v[i] < 0 && v[i] > -1e-3*float32(math.Max(w, 1)) {
			v[i] = 0 // rounding left over by unlearning
		}
	}
	return v
}

// IsZero reports whether every count is (about) zero.
func (v Vec) IsZero() bool {
	for _, c := range v {
		if c > 1e-6 || c < -1e-6 {
			return false
		}
	}
	return true
}

// Totals are a model's per-class decision counts (scaled like Vec) plus,
// for the kind model, the number of feature occurrences per kind.
type Totals struct {
	Docs  [NClasses]float64
	Feats [4]float64
}

// Add returns t plus the totals of one decision with n features.
func (t Totals) Add(d Vec, n int, w float64) Totals {
	for i := range t.Docs {
		t.Docs[i] += w * float64(d[i])
		if t.Docs[i] < 1e-9 {
			t.Docs[i] = 0
		}
	}
	for k := range t.Feats {
		t.Feats[k] += w * float64(d[CTask+k]) * float64(n)
		if t.Feats[k] < 1e-9 {
			t.Feats[k] = 0
		}
	}
	return t
}

// Label is what one decision teaches.
type Label struct {
	Spam, Ham       bool
	Approve, Reject bool
	Kind            string // the kind approved as, "" for none
}

// Vec returns the label as a unit count vector.
func (l Label) Vec() Vec {
	var v Vec
	set := func(i int, b bool) {
		if b {
			v[i] = 1
		}
	}
	set(CSpam, l.Spam)
	set(CHam, l.Ham)
	set(CApprove, l.Approve)
	set(CReject, l.Reject)
	for i, k := range Kinds {
		set(CTask+i, l.Kind == k)
	}
	return v
}

// Params tune the model. The zero value means the defaults.
type Params struct {
	// HalfLife is how long until a decision weighs half as much as a new
	// one. Default 180 days: preferences change slowly, but they change.
	HalfLife time.Duration
	// Strength and Prior are Robinson's s and x: how much a feature seen
	// in n decisions is pulled towards "no idea" (x) — s counts as s
	// decisions. Defaults 0.45 and 0.5 (SpamBayes').
	Strength, Prior float64
	// MinDev drops features whose probability is within MinDev of 0.5:
	// they say nothing and only dilute the others. Default 0.1.
	MinDev float64
	// MaxClues is how many of the most decisive features are combined.
	// Default 150.
	MaxClues int
	// IdentityWeight counts a sender, list or domain clue as that many
	// clues, in every model. Default 10: chosen with `scouts eval` on the
	// development groups (relevance after 200 decisions: weight 1 showed
	// 95.4 % of the wanted mail with 21 % of the shown cards unwanted;
	// weight 10 with screen_below 0.3, 96.8 % and 8.2 %; kind right after
	// 100 decisions 70.6 % → 80.6 %).
	IdentityWeight int
	// SpamIdentityWeight is what a sender, list or domain clue counts as
	// in the spam model when it is pure; a clue that carried both spam
	// and not-spam counts as 1 + (SpamIdentityWeight-1)·purity, where
	// purity is how far the decisions containing it outnumber the others
	// on the side the clue leans to ((spam-ham)/(spam+ham) for a clue
	// leaning to spam), and 0 when they do not. Who sends may decide what
	// a person wants, but a list that once carried spam must not send its
	// later mail to Spam on its name alone (issue 19). Default 10: on the
	// comparison in docs/triage.md, weighing identity as one word in the
	// spam model sent 17 legitimate mails of the later half to Spam (pure
	// not-spam senders and lists no longer protected their mail), and
	// purity none.
	SpamIdentityWeight int
	// FlatIdentity weighs identity clues in the spam model at
	// SpamIdentityWeight whatever their purity: the learner before issue
	// 19, kept so that `scouts eval --compare` can measure against it.
	FlatIdentity bool
	// CountsOnly leaves the content spam model (Model.Content) out of the
	// spam probability: the counts alone decide, as before issue 19. The
	// content model is on by default: on the comparison in
	// docs/triage.md, with familiar senders kept out of Spam (the
	// engine's FamiliarAfter) it caught 96.6 % of the later half's spam
	// against 68.2 % for the counts alone at the scouts' threshold, and
	// sent no legitimate mail to Spam either way. Without that gate it
	// sent a news feed that only started after the earlier half to Spam.
	CountsOnly bool
	// MixCounts and MixContent combine the counts' spam probability with
	// the content model's log-odds (see Mix) unless CountsOnly.
	// Defaults 0.5 and 2: 0.2 and 0.8 scaled by 2.5 so that the scouts'
	// default spam threshold (0.9) falls where the comparison chose 0.7.
	MixCounts, MixContent float64
}

func (p Params) withDefaults() Params {
	if p.HalfLife <= 0 {
		p.HalfLife = 180 * 24 * time.Hour
	}
	if p.Strength <= 0 {
		p.Strength = 0.45
	}
	if p.Prior <= 0 {
		p.Prior = 0.5
	}
	if p.MinDev <= 0 {
		p.MinDev = 0.1
	}
	if p.MaxClues <= 0 {
		p.MaxClues = 150
	}
	if p.IdentityWeight <= 0 {
		p.IdentityWeight = 10
	}
	if p.SpamIdentityWeight <= 0 {
		p.SpamIdentityWeight = 10
	}
	if p.MixCounts <= 0 && p.MixContent <= 0 {
		p.MixCounts, p.MixContent = 0.5, 2
	}
	return p
}

// Weight is the weight of a decision made at t in a model whose weights
// count from epoch: 2^((t-epoch)/half-life). New decisions weigh more than
// old ones by exactly the fading the half-life asks for, and dividing any
// stored count by Weight(now) gives its faded value.
func (p Params) Weight(epoch, t time.Time) float64 {
	p = p.withDefaults()
	return math.Exp2(float64(t.Sub(epoch)) / float64(p.HalfLife))
}

// Clue is one feature's evidence in a prediction.
type Clue struct {
	Feature
	// P is the feature's probability of the first class (spam, approve,
	// or the predicted kind), after Robinson's smoothing.
	P float64
	// A and B are how many decisions (faded) of each class contained the
	// feature.
	A, B float64
}

// Binary is one two-class prediction.
type Binary struct {
	// P is the probability of the first class (spam; approve), or -1 when
	// the model has no decisions of one of the classes yet.
	P float64
	// Decisions are the (faded) decisions of each class the model holds.
	A, B float64
	// Clues are the features that decided, most decisive first.
	Clues []Clue
}

// KindGuess is the kind model's prediction.
type KindGuess struct {
	Kind string // "" when the model has no kind decisions
	P    float64
	// Decisions is how many approvals (faded) taught kinds.
	Decisions float64
	Clues     []Clue
}

// Prediction is what the learner expects the person to do with an item.
type Prediction struct {
	Approve Binary
	Spam    Binary
	Kind    KindGuess
}

// Model is one scout's learner state: its parameters, epoch and totals.
// Counts per feature live in a Table (memory, or the desktop's database).
type Model struct {
	Params Params
	Epoch  time.Time
	Totals Totals
	// Content is the content spam model trained from the scout's stored
	// examples, nil for none: unless Params.CountsOnly its log-odds are
	// mixed into Predict's spam probability (Params.MixCounts,
	// MixContent). Shared, read-only here.
	Content *Content
}

// Table reads the stored counts of features.
type Table interface {
	// Lookup returns the counts of each hash, zero for unknown ones.
	Lookup(hashes []uint64) ([]Vec, error)
}

// Predict scores an item's features against the model's counts at now.
func (m *Model) Predict(tbl Table, fs []Feature, now time.Time) (Prediction, error) {
	hashes := make([]uint64, len(fs))
	for i, f := range fs {
		hashes[i] = f.Hash
	}
	counts, err := tbl.Lookup(hashes)
	if err != nil {
		return Prediction{}, err
	}
	pred := m.predict(fs, counts, now)
	if m.Content != nil && !m.Params.CountsOnly {
		p := m.Params.withDefaults()
		z, ok := m.Content.LogitFeatures(fs)
		pred.Spam.P = Mix(pred.Spam.P, z, ok, p.MixCounts, p.MixContent)
	}
	return pred, nil
}

func (m *Model) predict(fs []Feature, counts []Vec, now time.Time) Prediction {
	p := m.Params.withDefaults()
	scale := 1 / p.Weight(m.Epoch, now)
	return Prediction{
		Approve: m.binary(p, fs, counts, CApprove, CReject, scale),
		Spam:    m.binary(p, fs, counts, CSpam, CHam, scale),
		Kind:    m.kind(p, fs, counts, scale),
	}
}

// binary is Robinson–Fisher: each feature's class-a probability, smoothed
// towards Prior by how rarely it was seen, the most decisive ones combined
// with Fisher's method (chi-square of the summed logs), as in SpamBayes
// and bogofilter. It is exact under unlearning: the counts are sums.
func (m *Model) binary(p Params, fs []Feature, counts []Vec, a, b int, scale float64) Binary {
	na, nb := m.Totals.Docs[a], m.Totals.Docs[b]
	out := Binary{P: -1, A: na * scale, B: nb * scale}
	if na <= 0 || nb <= 0 {
		return out
	}
	clues := make([]Clue, 0, len(fs))
	for i, f := range fs {
		ca, cb := float64(counts[i][a]), float64(counts[i][b])
		if ca <= 0 && cb <= 0 || a == CSpam && f.Participant() {
			continue
		}
		ra, rb := ca/na, cb/nb
		prob := ra / (ra + rb)
		n := (ca + cb) * scale
		prob = (p.Strength*p.Prior + n*prob) / (p.Strength + n)
		if math.Abs(prob-0.5) < p.MinDev {
			continue
		}
		clues = append(clues, Clue{Feature: f, P: prob, A: ca * scale, B: cb * scale})
	}
	slices.SortStableFunc(clues, func(x, y Clue) int {
		dx, dy := math.Abs(x.P-0.5), math.Abs(y.P-0.5)
		switch {
		case dx > dy:
			return -1
		case dx < dy:
			return 1
		}
		return 0
	})
	if len(clues) > p.MaxClues {
		clues = clues[:p.MaxClues]
	}
	out.Clues = clues
	if len(clues) == 0 {
		out.P = 0.5
		return out
	}
	var lnA, lnB, n float64
	for _, c := range clues {
		pr := math.Min(math.Max(c.P, 1e-9), 1-1e-9)
		w := p.clueWeight(c, a == CSpam)
		lnA += w * math.Log(pr)
		lnB += w * math.Log(1-pr)
		n += w
	}
	dof := 2 * max(1, int(math.Round(n)))
	sA := 1 - chi2Q(-2*lnB, dof) // evidence for a: the b-probabilities are small
	sB := 1 - chi2Q(-2*lnA, dof)
	out.P = (sA - sB + 1) / 2
	return out
}

// clueWeight is how many clues c counts as. Who sent it weighs as much as
// several words for relevance and kinds: a person's preferences are mostly
// about senders and lists, and one sender clue must not drown among a
// hundred words of the body. For spam it weighs by how pure it was.
func (p Params) clueWeight(c Clue, spam bool) float64 {
	if !c.Group.IsIdentity() {
		return 1
	}
	if !spam {
		return float64(p.IdentityWeight)
	}
	purity := 1.0
	if t := c.A + c.B; t > 0 && !p.FlatIdentity {
		// How pure it is towards the side it leans to, on the decisions
		// themselves: a list that carried 3 spam and 10 kept mails leans
		// to spam by the classes' shares when the person marked few spam,
		// but most of what it carried was kept, and it weighs as a word.
		towards := c.A - c.B
		if c.P < 0.5 {
			towards = -towards
		}
		purity = max(0, towards/t)
	}
	return 1 + float64(p.SpamIdentityWeight-1)*purity
}

// chi2Q is the chi-square survival function for even degrees of freedom.
func chi2Q(x2 float64, dof int) float64 {
	m := x2 / 2
	term := math.Exp(-m)
	sum := term
	for i := 1; i < dof/2; i++ {
		term *= m / float64(i)
		sum += term
	}
	return math.Min(sum, 1)
}

// kindVocab is the vocabulary size assumed for the kind model's Laplace
// smoothing: the order of the number of distinct features a scout sees.
const kindVocab = 50000

// kind is multinomial naive Bayes over the four kinds, restricted to the
// features the kind model has seen (the rest say the same for every kind).
func (m *Model) kind(p Params, fs []Feature, counts []Vec, scale float64) KindGuess {
	var docs float64
	for k := range Kinds {
		docs += m.Totals.Docs[CTask+k]
	}
	out := KindGuess{Decisions: docs * scale}
	if docs <= 0 {
		return out
	}
	var score [4]float64
	for k := range Kinds {
		// Kinds never chosen get a small prior rather than none, so that
		// strong evidence can still reach them.
		score[k] = math.Log((m.Totals.Docs[CTask+k] + 0.5) / (docs + 2))
	}
	type ev struct {
		i   int
		llr [4]float64
	}
	var evs []ev
	for i := range fs {
		c := counts[i]
		if c[CTask] <= 0 && c[CNote] <= 0 && c[CEvent] <= 0 && c[CProject] <= 0 {
			continue
		}
		var e ev
		e.i = i
		w := 1
		if fs[i].Group.IsIdentity() {
			w = p.IdentityWeight
		}
		for k := range Kinds {
			// The smoothing constant is in faded units, like the counts.
			alpha := 1 / scale
			l := math.Log((float64(c[CTask+k]) + alpha) / (m.Totals.Feats[k] + alpha*kindVocab))
			e.llr[k] = l
			score[k] += float64(w) * l
		}
		evs = append(evs, e)
	}
	best, second := 0, -1
	for k := 1; k < 4; k++ {
		if score[k] > score[best] {
			best = k
		}
	}
	for k := range 4 {
		if k != best && (second < 0 || score[k] > score[second]) {
			second = k
		}
	}
	var z float64
	for k := range 4 {
		z += math.Exp(score[k] - score[best])
	}
	out.Kind = Kinds[best]
	out.P = 1 / z
	slices.SortStableFunc(evs, func(x, y ev) int {
		dx, dy := x.llr[best]-x.llr[second], y.llr[best]-y.llr[second]
		switch {
		case dx > dy:
			return -1
		case dx < dy:
			return 1
		}
		return 0
	})
	for _, e := range evs {
		if e.llr[best]-e.llr[second] <= 0 || len(out.Clues) == 5 {
			break
		}
		c := counts[e.i]
		out.Clues = append(out.Clues, Clue{Feature: fs[e.i], P: 1 / (1 + math.Exp(e.llr[second]-e.llr[best])),
			A: float64(c[CTask+best]) * scale, B: float64(c[CTask+second]) * scale})
	}
	return out
}

// MemTable is a Table in memory: for evaluation, tests and benchmarks.
type MemTable map[uint64]Vec

// Lookup implements Table.
func (t MemTable) Lookup(hashes []uint64) ([]Vec, error) {
	out := make([]Vec, len(hashes))
	for i, h := range hashes {
		out[i] = t[h]
	}
	return out, nil
}

// Apply adds w·d to the counts of every hash (a decision learned with
// weight w; a negative w unlearns it).
func (t MemTable) Apply(hashes []uint64, d Vec, w float64) {
	for _, h := range hashes {
		v := t[h].Add(d, w)
		if v.IsZero() {
			delete(t, h)
		} else {
			t[h] = v
		}
	}
}

// DefaultMix returns the product's weights of the counts' spam log-odds and
// the content model's (Params.MixCounts, MixContent).
func DefaultMix() (counts, content float64) {
	p := Params{}.withDefaults()
	return p.MixCounts, p.MixContent
}
