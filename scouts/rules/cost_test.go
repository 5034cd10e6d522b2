package rules

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCountedUnicodeClassesRefused: a counted repetition of a large class
// keeps a thread per repetition alive on every byte of the text (the
// issue's \pL{1000} and [\x{0}-\x{10FFFF}]{500}x cost over a second each on
// a 64 KiB file): refused when the rule is saved, naming the rule and the
// condition.
func TestCountedUnicodeClassesRefused(t *testing.T) {
	for _, c := range []struct{ when, path string }{
		{`{"text":{"regex":"\\pL{1000}"}}`, "/when/text/regex"},
		{`{"text":{"regex":"[\\x{0}-\\x{10FFFF}]{500}x"}}`, "/when/text/regex"},
		{`{"$and":[{"name":{"contains":"a"}},{"text":{"regex":"\\pL{1000}"}}]}`, "/when/$and/1/text/regex"},
		{`{"$or":[{"ext":{"equals":"txt"}},{"text":{"regex":"[\\x{0}-\\x{10FFFF}]{500}x","case_sensitive":true}}]}`, "/when/$or/1/text/regex"},
	} {
		_, err := Compile(KindFolder, []byte(`{"id":"slow","when":`+c.when+`,"then":{"verdict":"show"}}`), Options{})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: accepted (%v)", c.when, err)
			continue
		}
		if e.Rule != "slow" || e.Path != c.path || !strings.Contains(e.Msg, "regex") || !strings.Contains(e.Msg, "steps") {
			t.Errorf("%s: %v; want rule \"slow\" at %s, saying what the regex costs", c.when, err, c.path)
		}
	}
}

// TestAcceptedRulesStopWithinTheItemBudget: rules that are each accepted
// but cost real work on a 64 KiB text (forty letters then an x, on a file
// of letters: forty threads alive on every byte) spend the item's budget
// in proportion to that work, so it runs out and says so, instead of all
// of them running (20 such rules took the old model 5 Mi of its 8 Mi
// steps: the budget never fired).
func TestAcceptedRulesStopWithinTheItemBudget(t *testing.T) {
	it := NewItem(KindFolder)
	it.SetString("text", strings.Repeat("a", MaxTextField))
	var set Set
	for i := range 20 {
		c := rule(t, KindFolder, `{"text":{"regex":"[a-z]{40}x"}}`)
		c.Rule.ID = fmt.Sprintf("r%d", i)
		set = append(set, c)
	}
	c, _, notes := set.Match(&it, "")
	if c != nil || len(notes) != 1 || !strings.Contains(notes[0], "budget") {
		t.Fatalf("matched %v, notes %q: want the budget to run out", c, notes)
	}
	m := set.MatchWithin(&it, "", Budget{})
	if m.Rule != nil || m.TooSlow == nil || m.OutOfTime {
		t.Fatalf("%+v: want a rule too slow, out of steps", m)
	}
	if m.Steps > ItemBudget {
		t.Errorf("spent %d steps, more than the item's %d", m.Steps, ItemBudget)
	}
	if m.TooSlow.Rule.ID == "r19" {
		t.Errorf("every rule ran before the budget ran out")
	}
}

// fakeClock is a clock that advances by step at each reading: what an
// evaluation or a probe does with time, without waiting for any.
func fakeClock(step time.Duration, reads *int) Clock {
	return func() (func() time.Duration, func()) {
		var now time.Duration
		return func() time.Duration {
			*reads++
			now += step
			return now
		}, func() {}
	}
}

// TestItemTimeStopsEvaluation: the item's time ends evaluation between
// conditions, even when the cost model's steps would allow more (a
// machine slower than the model's): the rule it runs out on is too slow,
// it and the rules after it are not tried, and the note says so.
func TestItemTimeStopsEvaluation(t *testing.T) {
	it := NewItem(KindFolder)
	it.SetString("text", strings.Repeat("a", MaxTextField))
	var set Set
	for i := range 5 {
		// Each condition costs more than clockEvery steps, so that the
		// clock is read before each.
		c := rule(t, KindFolder, `{"text":{"regex":"a{3}x"}}`)
		c.Rule.ID = fmt.Sprintf("r%d", i)
		set = append(set, c)
	}
	reads := 0
	// 200 ms a reading: the third reading (600 ms) is past ItemTime.
	m := set.MatchWithin(&it, "", Budget{Clock: fakeClock(200*time.Millisecond, &reads)})
	if m.Rule != nil || m.TooSlow != set[2] || !m.OutOfTime || !m.Result.OutOfTime || reads != 3 {
		t.Fatalf("match %v, too slow %v, out of time %v, %d readings; want r2 too slow on the third reading", m.Rule, m.TooSlow, m.OutOfTime, reads)
	}
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "rule “r2” was too slow") || !strings.Contains(m.Notes[0], "evaluation time") || !strings.Contains(m.Notes[0], "2 rule(s) after it were not tried") {
		t.Errorf("notes %q", m.Notes)
	}
	if m.Steps >= ItemBudget {
		t.Errorf("the steps ran out too (%d), not only the time", m.Steps)
	}
	// The same rules within their time match none and try all.
	reads = 0
	if m := set.MatchWithin(&it, "", Budget{Clock: fakeClock(time.Millisecond, &reads)}); m.TooSlow != nil || m.Rule != nil || reads != 5 {
		t.Errorf("within the time: %+v, %d readings", m, reads)
	}
}

// TestProbeRefusesWhatTheModelMisjudges: a regex the cost model accepts
// is run, when its rule is saved, on worst-case texts; one that takes
// more than its cost allows there is refused, naming the rule and the
// condition, and a rule read back from storage (no probe) is not.
func TestProbeRefusesWhatTheModelMisjudges(t *testing.T) {
	doc := []byte(`{"id":"probed","when":{"$and":[{"ext":{"equals":"txt"}},{"text":{"regex":"[a-z]{40}x"}}]},"then":{"verdict":"show"}}`)
	reads := 0
	_, err := Compile(KindFolder, doc, Options{Probe: true, probeClock: fakeClock(time.Second, &reads)})
	var e *Error
	if !errors.As(err, &e) || e.Rule != "probed" || e.Path != "/when/$and/1/text/regex" || !strings.Contains(e.Msg, "the regex took 1s of CPU") || !strings.Contains(e.Msg, "65536-byte text") {
		t.Fatalf("probe: %v", err)
	}
	if _, err := Compile(KindFolder, doc, Options{probeClock: fakeClock(time.Second, &reads)}); err != nil {
		t.Fatalf("without the probe: %v", err)
	}
	// A cheap regex (a short field) is not worth probing.
	reads = 0
	if _, err := Compile(KindFolder, []byte(`{"id":"cheap","when":{"name":{"regex":"^inv"}},"then":{"verdict":"show"}}`), Options{Probe: true, probeClock: fakeClock(time.Second, &reads)}); err != nil || reads != 0 {
		t.Fatalf("cheap regex: %v, %d readings", err, reads)
	}
}

// TestProbeTexts: the probe's texts keep a counted repetition's matches
// in progress without completing one: a run of letters one short of the
// count, then a rune the class refuses.
func TestProbeTexts(t *testing.T) {
	re, err := compileRegex(`\pL{1000}`, false)
	if err != nil {
		t.Fatal(err)
	}
	texts := probeTexts(re, MaxShortField)
	found := false
	for _, s := range texts {
		if len(s) > MaxShortField || len(s) < MaxShortField-4 {
			t.Errorf("a probe text of %d bytes", len(s))
		}
		if strings.HasPrefix(s, strings.Repeat("A", 999)+" "+strings.Repeat("A", 999)+" ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no text of 999 letters and a space among %d", len(texts))
	}
}
