package evaluate

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// arrivalGap is the simulated time between two arrivals: the clock only
// has to move forward (the learner's fading is over months).
const arrivalGap = 3 * time.Minute

// checkpoints returns the positive checkpoints, sorted, once each.
func checkpoints(cps []int) []int {
	var out []int
	for _, c := range cps {
		if c > 0 {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// timeline is one run of the user over the training part.
type timeline struct {
	o    Options
	p    *product
	rep  *Report
	test []judged

	cps     []int
	next    int // the next checkpoint
	scores  int // scorings so far, for fresh refs
	taught  bool
	seen    []scored
	durs    []time.Duration
	pending []leftCard // cards left alone that silence has not settled
}

// leftCard is a card the user left in Screened or Spam.
type leftCard struct {
	id   string
	ref  string
	lane scouts.Lane
	spam bool
}

// runMain plays the user over the training part — batches of arrivals,
// each card decided or left by the user's rule, silence settled after the
// next batch — scoring the test part at every checkpoint and at the end.
func runMain(ctx context.Context, o Options, train, test []judged, rep *Report) error {
	dir, err := os.MkdirTemp(o.Dir, "main-")
	if err != nil {
		return fmt.Errorf("evaluate: %w", err)
	}
	p, err := newProduct(ctx, dir, o.Settings, o.Seed)
	if err != nil {
		return err
	}
	defer p.close()
	p.measure = o.MinMeasure
	t := &timeline{o: o, p: p, rep: rep, test: test, cps: checkpoints(o.Checkpoints)}
	rep.Implicit = o.Settings.SilenceDays > 0
	p.expireScored = rep.Implicit
	var prevArrival time.Time
	for b := 0; b*o.Batch < len(train); b++ {
		batch := train[b*o.Batch : min((b+1)*o.Batch, len(train))]
		p.tick(time.Duration(len(batch)) * arrivalGap)
		arrival := p.clock()
		if err := t.batch(ctx, b, batch); err != nil {
			return err
		}
		// Silence teaches after the next batch: the cards of the batch
		// before this one have been in front of the user twice and
		// left alone, this batch's only once.
		if rep.Implicit && b > 0 {
			at := prevArrival.Add(time.Duration(o.Settings.SilenceDays)*24*time.Hour + time.Second)
			if err := t.settle(ctx, b, at); err != nil {
				return err
			}
		}
		prevArrival = arrival
	}
	// The final scores come after everything was taught.
	if !t.taught && len(rep.Curve) > 0 {
		rep.Curve = rep.Curve[:len(rep.Curve)-1]
	}
	if err := t.score(ctx, true); err != nil {
		return err
	}
	rep.Training = scoresOf(t.seen)
	rep.Training.Decisions = rep.Person.Decisions
	rep.Update = latency(t.durs)
	st, err := p.db.LearnState(ctx, p.scout.ID)
	if err != nil {
		return err
	}
	rep.Person.SpamTaught, rep.Person.HamTaught = st.Spam, st.Ham
	fp, err := p.footprint(ctx)
	if err != nil {
		return err
	}
	rep.Model = fp
	o.progress("measuring the steps alone and the insert floor")
	if err := p.measureSteps(ctx, test, &rep.Throughput); err != nil {
		return err
	}
	floor, err := insertFloor(ctx, dir, p, train)
	if err != nil {
		return err
	}
	rep.UpdateFloor = floor
	return nil
}

// batch delivers one batch and lets the user look at each of its cards.
func (t *timeline) batch(ctx context.Context, b int, batch []judged) error {
	refs := make([]string, len(batch))
	mails := make([]*Mail, len(batch))
	for i, j := range batch {
		refs[i], mails[i] = j.mail.Ref, j.mail
	}
	if err := t.p.arrive(ctx, refs, mails); err != nil {
		return err
	}
	for _, j := range batch {
		s, ok, err := t.p.find(ctx, j.mail.Ref)
		if err != nil {
			return err
		}
		if !ok {
			t.rep.Accounting.Unreadable++
			continue
		}
		t.rep.Accounting.Trained++
		t.seen = append(t.seen, scored{j: j, s: s})
		pl := choose(t.o.User, s.Lane, j)
		ds, err := t.p.act(ctx, s, j, pl)
		if err != nil {
			return err
		}
		t.durs = append(t.durs, ds...)
		t.rep.Person.Calls += len(ds)
		t.rep.Person.count(s.Lane, pl, j)
		if t.o.Trace != nil {
			after, err := t.p.db.GetSuggestion(ctx, s.ID)
			if err != nil {
				return err
			}
			t.o.Trace(TraceEvent{Batch: b, Ref: j.mail.Ref, Spam: j.mail.Spam, Wanted: j.wanted, Lane: s.Lane,
				Rescued: pl.rescue, Action: pl.act, After: after})
		}
		if pl.act == ActNone {
			t.pending = append(t.pending, leftCard{id: s.ID, ref: j.mail.Ref, lane: s.Lane, spam: j.mail.Spam})
			continue
		}
		t.taught = true
		if t.next < len(t.cps) && t.rep.Person.Decisions == t.cps[t.next] {
			t.next++
			if err := t.score(ctx, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// score delivers the test part anew and adds its scores to the curve.
func (t *timeline) score(ctx context.Context, last bool) error {
	t.scores++
	n := t.rep.Person.Decisions
	t.o.progress("scoring the %d test messages after %d decisions", len(t.test), n)
	sc, tp, err := t.p.score(ctx, "score-"+strconv.Itoa(t.scores)+"/", t.test, last)
	if err != nil {
		return err
	}
	sc.Decisions = n
	t.rep.Curve = append(t.rep.Curve, sc)
	t.taught = false
	if last {
		t.rep.Throughput = tp
		t.rep.Accounting.Scored = sc.Messages
		t.rep.Accounting.Unreadable += len(t.test) - sc.Messages
	}
	return nil
}
