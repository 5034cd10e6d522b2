package learn

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Content is the spam model that reads what an item says: online logistic
// regression over hashed features, with AdaGrad step sizes and each item's
// features scaled by 1/√n — the approach that won the TREC spam tracks
// (Goodman and Yih; Sculley and Wachman). Its weights live in a fixed
// table of 2^ContentBits cells indexed by the feature's hash, so its size
// does not grow with the vocabulary.
//
// A step of gradient descent cannot be taken back, so Content is never
// unlearned: it is a function of an ordered list of examples (Train), and
// the owner keeps those examples (feature ids and labels, no text) and
// trains a new model from them when one is undone (see Examples). Between
// two settling points (Settled), learning the examples one by one with
// Learn gives bit for bit the same weights as Train on the same list.
//
// Content is safe for concurrent use: predictions share a read lock.
type Content struct {
	mu sync.RWMutex
	// rate is AdaGrad's base step.
	rate float64
	w, g []float32
	bias struct{ w, g float64 }
	// spam and ham are the weights of the examples of each class learned.
	spam, ham float64
	// n and nSpam count the examples learned, and the spam among them.
	n, nSpam int
}

// ContentBits sizes the weight table: 2^20 cells, 4 MB of weights and 4
// MB of AdaGrad sums per scout. Collisions between a mailbox's features
// (tens of thousands) are rare at this size.
const ContentBits = 20

const contentMask = 1<<ContentBits - 1

// DefaultContentRate is AdaGrad's base step (chosen with `scouts eval
// --compare` on the development groups; see docs/triage.md).
const DefaultContentRate = 2

// NewContent returns an empty model with base step rate (≤ 0: the default).
func NewContent(rate float64) *Content {
	if rate <= 0 {
		rate = DefaultContentRate
	}
	return &Content{rate: rate}
}

// ContentExample is one decision as the content model learns it: the ids
// of the item's features (ContentIDs), whether it was spam, and the weight
// of the decision (1 for an explicit decision, less for a silence).
type ContentExample struct {
	IDs    []uint32
	Spam   bool
	Weight float64
}

// ContentLearns reports whether the content model learns a lesson l
// taught at factor of an explicit decision's weight: spam always, and
// not-spam only when the person said so. Silence in Screened confirms that
// a card was not wanted; the spam that lands there (most of it, for a
// model still learning) would teach the content model that spam is not
// spam, so only the counts learn from it (docs/triage.md).
func ContentLearns(l Label, factor float64) bool {
	return l.Spam || (l.Ham && factor >= 1)
}

// ContentIDs returns the content model's feature ids of fs: each
// feature's hash folded into the table, sorted, without repeats. Every
// group counts, identity included, as one feature among the others, but
// for the people the item was sent to (Feature.Participant), which no
// spam model reads.
func ContentIDs(fs []Feature) []uint32 {
	out := make([]uint32, 0, len(fs))
	for _, f := range fs {
		if !f.Participant() {
			out = append(out, uint32(f.Hash&contentMask))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// HashIDs is ContentIDs of stored feature hashes (Hashes), the
// participants' already taken out.
func HashIDs(hashes []uint64) []uint32 {
	out := make([]uint32, 0, len(hashes))
	for _, h := range hashes {
		out = append(out, uint32(h&contentMask))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Ready reports whether the model has learned both classes.
func (m *Content) Ready() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.spam > 0 && m.ham > 0
}

// Examples is how many examples the model learned.
func (m *Content) Examples() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.n
}

// Logit returns the model's log-odds that ids are spam; ok is false until
// it has learned both classes.
func (m *Content) Logit(ids []uint32) (z float64, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.spam <= 0 || m.ham <= 0 {
		return 0, false
	}
	return m.logit(ids), true
}

// P returns the probability that ids are spam, -1 until the model has
// learned both classes.
func (m *Content) P(ids []uint32) float64 {
	z, ok := m.Logit(ids)
	if !ok {
		return -1
	}
	return sigmoid(z)
}

// LogitFeatures is Logit of ContentIDs(fs) without building the ids: the
// prediction on an arriving item's features. Two of an item's features
// that fall in one cell (rare: hundreds of features in a million cells)
// count twice here and once in training.
func (m *Content) LogitFeatures(fs []Feature) (z float64, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.spam <= 0 || m.ham <= 0 {
		return 0, false
	}
	z = m.bias.w
	if m.w == nil {
		return z, true
	}
	var s float64
	var n int
	for _, f := range fs {
		if !f.Participant() {
			s += float64(m.w[f.Hash&contentMask])
			n++
		}
	}
	if n == 0 {
		return z, true
	}
	return z + s/math.Sqrt(float64(n)), true
}

func (m *Content) logit(ids []uint32) float64 {
	z := m.bias.w
	if m.w == nil || len(ids) == 0 {
		return z
	}
	x := 1 / math.Sqrt(float64(len(ids)))
	var s float64
	for _, id := range ids {
		s += float64(m.w[id&contentMask])
	}
	return z + x*s
}

// Learn takes one AdaGrad step towards the example's label: the model of
// its examples and this one as long as no settling point lies between
// (Extends); across one, the owner trains it again (Train).
func (m *Content) Learn(e ContentExample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.learn(e)
}

func (m *Content) learn(e ContentExample) {
	if e.Weight <= 0 {
		return
	}
	m.step(e)
	m.count(e)
}

// count records that the model learned e.
func (m *Content) count(e ContentExample) {
	if e.Weight <= 0 {
		return
	}
	if e.Spam {
		m.spam += e.Weight
		m.nSpam++
	} else {
		m.ham += e.Weight
	}
	m.n++
}

// step takes one AdaGrad step towards e's label.
func (m *Content) step(e ContentExample) {
	if e.Weight <= 0 {
		return
	}
	if m.w == nil {
		m.w = make([]float32, 1<<ContentBits)
		m.g = make([]float32, 1<<ContentBits)
	}
	y := 0.0
	if e.Spam {
		y = 1
	}
	grad := (sigmoid(m.logit(e.IDs)) - y) * e.Weight
	m.bias.g += grad * grad
	m.bias.w -= m.rate * grad / math.Sqrt(m.bias.g+1e-8)
	if len(e.IDs) == 0 {
		return
	}
	gx := grad / math.Sqrt(float64(len(e.IDs)))
	g2 := float32(gx * gx)
	for _, id := range e.IDs {
		i := id & contentMask
		m.g[i] += g2
		m.w[i] -= float32(m.rate * gx / math.Sqrt(float64(m.g[i])+1e-8))
	}
}

// Train forgets everything and learns examples: the first
// Settled(examples) of them in SettlePasses passes (the first in
// order, the others each in its own fixed shuffled order), then the rest
// once each, in order. It is the model a store rebuilds after an undo,
// equal to one that never saw the undone decision, and the model that
// Learn builds one example at a time between two settling points
// (Extends).
//
// Why several passes over the first examples: one pass of online
// learning follows the order the mail came in, and mail comes in runs — a
// first week of spam, then weeks of mailing lists. On the development
// groups (99 spam among the first 100 arrivals, then 200 list mails), one
// pass had forgotten what spam looks like: after 200 decisions the product
// caught 8 % of the later half's spam, and 77–81 % with settling
// (docs/triage.md, "Settling the content model"). Later, when each new
// example moves the weights little, one pass is as good as several.
func (m *Content) Train(examples []ContentExample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reset()
	// An example of no weight teaches nothing and is no example (Examples).
	examples = slices.DeleteFunc(slices.Clone(examples), func(e ContentExample) bool { return e.Weight <= 0 })
	k := Settled(examples)
	if k > 0 {
		order := make([]int, k)
		for i := range order {
			order[i] = i
		}
		// A fixed seed: the model must be a function of its examples.
		rng := rand.New(rand.NewPCG(1, uint64(k)))
		for pass := range SettlePasses {
			if pass > 0 {
				rng.Shuffle(k, func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			for _, i := range order {
				m.step(examples[i])
			}
		}
		for _, e := range examples[:k] {
			m.count(e)
		}
	}
	for _, e := range examples[k:] {
		m.learn(e)
	}
}

// SettlePasses is how many passes Train makes over the examples it
// settles (chosen with `scouts eval` on the development groups; see
// docs/triage.md).
const SettlePasses = 5

// settlePoints are the numbers of examples at which the content model is
// trained again from all of them in SettlePasses passes. Each is about √2
// times the one before (doubling settled too rarely: 39–40 % of the spam
// after 300 decisions instead of 50–57 %), so that the passes cost a fixed
// few times the examples in all; they stop at 3,200: past it one pass is
// as good, and an undo's retraining stays cheap.
var settlePoints = [...]int{50, 71, 100, 141, 200, 283, 400, 566, 800, 1131, 1600, 2263, 3200}

// settleMinEach is how many examples of each class a prefix needs to be
// settled: passes over a first week of nothing but spam would only teach
// the model that everything is spam.
const settleMinEach = 20

// Settled is how many of the examples Train learns in several passes: the
// longest prefix whose length is a settling point and that holds at least
// settleMinEach examples of each class; 0 when there is none.
func Settled(examples []ContentExample) int {
	k, spam, n := 0, 0, 0
	for _, p := range settlePoints {
		if p > len(examples) {
			break
		}
		for ; n < p; n++ {
			if examples[n].Spam {
				spam++
			}
		}
		if spam >= settleMinEach && p-spam >= settleMinEach {
			k = p
		}
	}
	return k
}

// Extends reports whether learning more after the model's examples one by
// one (Learn) gives what training on all of them would (Train): when no
// settling point is reached in between.
func (m *Content) Extends(more []ContentExample) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n, spam := m.n, m.nSpam
	for _, e := range more {
		if e.Weight <= 0 {
			continue
		}
		n++
		if e.Spam {
			spam++
		}
		if slices.Contains(settlePoints[:], n) && spam >= settleMinEach && n-spam >= settleMinEach {
			return false
		}
	}
	return true
}

func (m *Content) reset() {
	if m.w != nil {
		clear(m.w)
		clear(m.g)
	}
	m.bias.w, m.bias.g = 0, 0
	m.spam, m.ham, m.n, m.nSpam = 0, 0, 0, 0
}

// Equal reports whether two models hold exactly the same weights: tests
// use it to prove unlearning exact.
func (m *Content) Equal(o *Content) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	o.mu.RLock()
	defer o.mu.RUnlock()
	if m.bias != o.bias || m.spam != o.spam || m.ham != o.ham || m.n != o.n {
		return false
	}
	zero := func(s []float32) bool { return !slices.ContainsFunc(s, func(f float32) bool { return f != 0 }) }
	switch {
	case m.w == nil && o.w == nil:
		return true
	case m.w == nil:
		return zero(o.w) && zero(o.g)
	case o.w == nil:
		return zero(m.w) && zero(m.g)
	}
	return slices.Equal(m.w, o.w) && slices.Equal(m.g, o.g)
}

// Mix combines the counts model's spam probability with the content
// model's log-odds: σ(a·logit(counts) + b·content). Either may be missing
// (counts < 0, ok false); with neither, -1.
func Mix(counts float64, content float64, ok bool, a, b float64) float64 {
	switch {
	case counts < 0 && !ok:
		return -1
	case counts < 0:
		return sigmoid(content)
	case !ok:
		return counts
	}
	c := math.Min(math.Max(counts, 1e-6), 1-1e-6)
	return sigmoid(a*math.Log(c/(1-c)) + b*content)
}

// MaxGramBytes is how much of an item's text its 4-grams are read from.
const MaxGramBytes = 3000

// Grams returns the ids of the byte 4-grams of the first MaxGramBytes of
// s (ASCII lower-cased, runs of white space as one space), keyed by salt:
// the features of the TREC spam tracks' winners, which see through the
// misspellings and spacing spam uses to dodge word filters.
func Grams(s string, salt uint64) []uint32 {
	if len(s) > MaxGramBytes {
		s = s[:MaxGramBytes]
	}
	out := make([]uint32, 0, len(s))
	var v uint32
	n := 0
	space := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if space {
				continue
			}
			c, space = ' ', true
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
			space = false
		default:
			space = false
		}
		v = v<<8 | uint32(c)
		if n++; n >= 4 {
			h := (uint64(v) ^ salt) * 0x9e3779b97f4a7c15
			h ^= h >> 29
			h *= 0xbf58476d1ce4e5b9
			out = append(out, uint32(h>>(64-ContentBits)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
