package learn

import "time"

// Teaching a model is arithmetic on counts, done here; where the counts
// live is the caller's business. The desktop's storage (app/localdb) reads
// an item's features, what it taught before and the counts of its features
// inside the transaction that records a decision, asks Reteach what they
// become, and writes that back in the same transaction: a decision and
// what it taught are one commit, and storage does no arithmetic.

// Taught is what one item has taught a model: its label as counts and the
// weight it was learned with. The zero value is "nothing yet".
type Taught struct {
	Vec    Vec
	Weight float64
}

// Tally is how many decisions a model holds and, of them, how many taught
// spam and how many not-spam.
type Tally struct {
	Decisions, Spam, Ham int
}

// Count is one feature's counts.
type Count struct {
	Hash uint64
	Vec  Vec
}

// Lesson is what re-teaching one item does to a model.
type Lesson struct {
	// Taught is what the item has now taught, kept beside its features so
	// that its next decision can take it back exactly.
	Taught Taught
	// Totals and Tally are the model's after the lesson.
	Totals Totals
	Tally  Tally
	// Put are the feature counts that change, in the order of the item's
	// hashes; Del the features whose counts fell to zero (forget them).
	Put []Count
	Del []uint64
}

// Reteach returns what it does to m (holding tally decisions) when the
// item whose features are hashes, having taught prev, teaches l as of at.
// Every decision replaces the item's previous teaching: prev is taken back
// with the weight it was learned with and l added with the weight of at
// (Params.Weight), so an undo, a change of mind or a rescue followed by an
// approval never counts twice and unlearning is exact. The counts of hashes
// are read from tbl only when the teaching changes; ok is false when it
// does not, and there is nothing to write.
func (m Model) Reteach(tbl Table, tally Tally, hashes []uint64, prev Taught, l Label, at time.Time) (lesson Lesson, ok bool, err error) {
	next := l.Vec()
	if prev.Vec == next {
		return Lesson{}, false, nil
	}
	w := m.Params.Weight(m.Epoch, at)
	counts, err := tbl.Lookup(hashes)
	if err != nil {
		return Lesson{}, false, err
	}
	for i, h := range hashes {
		v := counts[i].Add(prev.Vec, -prev.Weight).Add(next, w)
		if v.IsZero() {
			lesson.Del = append(lesson.Del, h)
		} else {
			lesson.Put = append(lesson.Put, Count{Hash: h, Vec: v})
		}
	}
	lesson.Totals = m.Totals.Add(prev.Vec, len(hashes), -prev.Weight).Add(next, len(hashes), w)
	nz := func(v Vec) int {
		if v.IsZero() {
			return 0
		}
		return 1
	}
	pos := func(f float32) int {
		if f > 0 {
			return 1
		}
		return 0
	}
	// Never below zero: a tally from before a reset, or rounded, must not
	// show a negative number of decisions.
	lesson.Tally = Tally{
		Decisions: max(tally.Decisions+nz(next)-nz(prev.Vec), 0),
		Spam:      max(tally.Spam+pos(next[CSpam])-pos(prev.Vec[CSpam]), 0),
		Ham:       max(tally.Ham+pos(next[CHam])-pos(prev.Vec[CHam]), 0),
	}
	lesson.Taught = Taught{Vec: next, Weight: w}
	return lesson, true, nil
}
