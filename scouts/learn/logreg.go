package learn

import "math"

// LogReg is online logistic regression over the same hashed features as
// Model, with AdaGrad step sizes: one logistic head for spam, one for
// approve, a softmax over the four kinds. It exists only so that the
// evaluation (scouts eval --compare) can measure it against the product's
// Robinson–Fisher model; the product does not use it.
//
// Unlike Model's counts, its weights cannot be taken back exactly: Learn
// with sign -1 takes a step against the gradient at the current weights,
// which is not the inverse of the step that learned the item.
type LogReg struct {
	// Rate is AdaGrad's base step. Default 0.5.
	Rate float64
	// Normalize scales an item's features by 1/√n, so that long mails do
	// not dominate. Default on (set Raw to turn it off).
	Raw bool

	w    map[uint64]*lrRow
	bias lrRow
	// seen counts the decisions of each class (for readiness, as Model's
	// totals do).
	seen [NClasses]float64
}

// lrHeads are the weights per feature: spam, approve, then the kinds.
const lrHeads = 2 + len(Kinds)

type lrRow struct {
	w, g [lrHeads]float32
}

// LogRegRowBytes is what one feature costs in memory or storage: its
// hash, weights and AdaGrad sums.
const LogRegRowBytes = 8 + 2*4*lrHeads

func (m *LogReg) rate() float64 {
	if m.Rate <= 0 {
		return 0.5
	}
	return m.Rate
}

func (m *LogReg) x(n int) float64 {
	if m.Raw || n == 0 {
		return 1
	}
	return 1 / math.Sqrt(float64(n))
}

// Features is how many features have weights.
func (m *LogReg) Features() int { return len(m.w) }

// logits returns the heads' raw scores for fs.
func (m *LogReg) logits(fs []Feature) [lrHeads]float64 {
	var z [lrHeads]float64
	for k := range z {
		z[k] = float64(m.bias.w[k])
	}
	x := m.x(len(fs))
	for _, f := range fs {
		if r := m.w[f.Hash]; r != nil {
			for k := range z {
				z[k] += x * float64(r.w[k])
			}
		}
	}
	return z
}

// Predict returns the probabilities of spam and of approval (-1 while the
// head has seen only one class), and the likeliest kind with its
// probability ("" before any kind was taught).
func (m *LogReg) Predict(fs []Feature) (spam, approve float64, kind string, kindP float64) {
	z := m.logits(fs)
	spam, approve = -1, -1
	if m.seen[CSpam] > 0 && m.seen[CHam] > 0 {
		spam = sigmoid(z[0])
	}
	if m.seen[CApprove] > 0 && m.seen[CReject] > 0 {
		approve = sigmoid(z[1])
	}
	var taught float64
	for k := range Kinds {
		taught += m.seen[CTask+k]
	}
	if taught > 0 {
		ps := softmax(z[2:])
		best := 0
		for k := range ps {
			if ps[k] > ps[best] {
				best = k
			}
		}
		kind, kindP = Kinds[best], ps[best]
	}
	return spam, approve, kind, kindP
}

// Learn takes one AdaGrad step towards the label (sign 1), or away from
// it (sign -1: an approximate unlearning).
func (m *LogReg) Learn(fs []Feature, l Label, sign float64) {
	if m.w == nil {
		m.w = map[uint64]*lrRow{}
	}
	z := m.logits(fs)
	var grad [lrHeads]float64
	var active [lrHeads]bool
	if l.Spam || l.Ham {
		grad[0], active[0] = sigmoid(z[0])-b2f(l.Spam), true
	}
	if l.Approve || l.Reject {
		grad[1], active[1] = sigmoid(z[1])-b2f(l.Approve), true
	}
	if l.Kind != "" {
		ps := softmax(z[2:])
		for k, name := range Kinds {
			grad[2+k], active[2+k] = ps[k]-b2f(l.Kind == name), true
		}
	}
	v := l.Vec()
	for i := range m.seen {
		m.seen[i] = math.Max(0, m.seen[i]+sign*float64(v[i]))
	}
	x := m.x(len(fs))
	step := func(r *lrRow, xi float64) {
		for k := range grad {
			if !active[k] {
				continue
			}
			g := grad[k] * xi
			r.g[k] += float32(g * g)
			r.w[k] -= float32(sign * m.rate() * g / math.Sqrt(float64(r.g[k])+1e-8))
		}
	}
	step(&m.bias, 1)
	for _, f := range fs {
		r := m.w[f.Hash]
		if r == nil {
			r = &lrRow{}
			m.w[f.Hash] = r
		}
		step(r, x)
	}
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func softmax(z []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	out := make([]float64, len(z))
	var s float64
	for i, v := range z {
		out[i] = math.Exp(v - mx)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
