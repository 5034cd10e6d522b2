package evaluate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/learn"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
)

// The comparison's user decides every Inbox card and, in Screened and
// Spam, only mistakes; it never confirms a correct placement. Silence
// confirms the lane, and only Spam's silence teaches spam.
func TestCompareUserRules(t *testing.T) {
	spam := judged{mail: &Mail{Spam: true}}
	wanted := judged{mail: &Mail{}, wanted: true, kind: scouts.EntityTask}
	unwanted := judged{mail: &Mail{}}
	for _, c := range []struct {
		name string
		j    judged
		lane scouts.Lane
		want learn.Label
		ok   bool
	}{
		{"spam in the inbox is marked", spam, scouts.LaneInbox, spamLabel, true},
		{"spam in Spam is left alone", spam, scouts.LaneSpam, learn.Label{}, false},
		{"spam in Screened is left alone", spam, scouts.LaneScreened, learn.Label{}, false},
		{"wanted mail in the inbox is approved", wanted, scouts.LaneInbox, approveLabel(wanted), true},
		{"wanted mail in Screened is rescued and approved", wanted, scouts.LaneScreened, approveLabel(wanted), true},
		{"wanted mail in Spam is rescued and approved", wanted, scouts.LaneSpam, approveLabel(wanted), true},
		{"unwanted mail in the inbox is rejected", unwanted, scouts.LaneInbox, rejectLabel, true},
		{"unwanted mail in Screened is left alone", unwanted, scouts.LaneScreened, learn.Label{}, false},
		{"unwanted mail in Spam is rescued and rejected", unwanted, scouts.LaneSpam, rejectLabel, true},
	} {
		l, ok := explicit(c.j, c.lane)
		if ok != c.ok || l != c.want {
			t.Errorf("%s: got %+v %v, want %+v %v", c.name, l, ok, c.want, c.ok)
		}
	}
	if l := silence(scouts.LaneSpam, true); !l.Spam || l.Ham {
		t.Errorf("silence in Spam teaches %+v", l)
	}
	if l := silence(scouts.LaneScreened, false); l.Spam || l.Ham || !l.Reject {
		t.Errorf("silence in Screened teaches %+v", l)
	}
}

// The comparison runs every contender over a time split: the earlier half
// is all older than the later, every learner but logistic regression
// alone undoes exactly, and the figures are shares.
func TestCompareRunsEveryLearner(t *testing.T) {
	in, err := LoadInput(synthetic(t, 240), corpus.HeldOutSums())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(context.Background(), Options{Input: in, Policy: syntheticPolicy(t), Seed: 1, MinMeasure: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if c.Train+c.Test != 240 || c.Train == 0 || c.Test == 0 {
		t.Fatalf("split %d + %d of 240", c.Train, c.Test)
	}
	if len(c.Algos) != len(contenders) {
		t.Fatalf("%d learners measured, want %d", len(c.Algos), len(contenders))
	}
	for _, a := range c.Algos {
		for _, f := range []float64{a.SpamCaught, a.LegitToSpam, a.HardToSpam, a.JunkInInbox, a.WantedShown} {
			if f < 0 || f > 1 {
				t.Errorf("%s: figure %v is not a share", a.Name, f)
			}
		}
		if a.UndoDelta != 0 && !strings.HasPrefix(a.Name, "logistic regression alone") {
			t.Errorf("%s: undo left a change of %v", a.Name, a.UndoDelta)
		}
	}
	var b strings.Builder
	c.Print(&b)
	if !strings.Contains(b.String(), "product") {
		t.Fatalf("the table leaves out the product:\n%s", b.String())
	}
}

// splitByDate puts every message of the earlier half before every message
// of the later.
func TestSplitByDate(t *testing.T) {
	at := time.Date(2002, 9, 1, 0, 0, 0, 0, time.UTC)
	ps := make([]prepared, 9)
	for i := range ps {
		ps[i].date = at.Add(time.Duration((i*5)%9) * time.Hour)
	}
	train, test := splitByDate(ps)
	for _, a := range train {
		for _, b := range test {
			if a.date.After(b.date) {
				t.Fatalf("%v in the earlier half after %v in the later", a.date, b.date)
			}
		}
	}
}
