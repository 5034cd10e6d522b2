package triage_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/triage"
	"github.com/scouts-hq/scouts/scouts/triage/corpus"
	"github.com/scouts-hq/scouts/scouts/triage/corpus/corpustest"
	"github.com/scouts-hq/scouts/scouts/triage/mailtext"
)

// sample is one parsed corpus message.
type sample struct {
	group corpus.Group
	name  string
	msg   triage.Message // neutralised, headers only
}

func loadSamples(tb testing.TB, c *corpus.Corpus, groups []corpus.Group) []sample {
	tb.Helper()
	var out []sample
	for _, g := range groups {
		items, err := c.Load(g)
		if err != nil {
			tb.Fatal(err)
		}
		for _, it := range items {
			m, err := mailtext.Parse(it.Raw, mailtext.Options{})
			if err != nil {
				tb.Fatalf("%s/%s: %v", g, it.Name, err)
			}
			corpus.Neutralize(&m)
			m.ID = string(g) + "/" + it.Name
			out = append(out, sample{group: g, name: it.Name, msg: m})
		}
	}
	return out
}

// noModel is the pipeline as it runs without a model: rules none,
// heuristics, default.
func noModel(tb testing.TB) *triage.Pipeline {
	tb.Helper()
	p, err := triage.New(triage.Config{Scout: "eval"})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func triageAll(tb testing.TB, p *triage.Pipeline, samples []sample) []triage.Decision {
	tb.Helper()
	out := make([]triage.Decision, len(samples))
	for i, s := range samples {
		d, err := p.Triage(context.Background(), s.msg)
		if err != nil {
			tb.Fatalf("%s: %v", s.msg.ID, err)
		}
		out[i] = d
	}
	return out
}

// report prints, per group, the verdicts and the paths that produced them,
// and the precision and recall of "spam".
func report(tb testing.TB, title string, samples []sample, ds []triage.Decision) {
	tb.Helper()
	type counts struct {
		n        int
		verdicts map[triage.Verdict]int
		paths    map[string]int
	}
	per := map[corpus.Group]*counts{}
	var order []corpus.Group
	tp, fp, fn := 0, 0, 0
	for i, s := range samples {
		c := per[s.group]
		if c == nil {
			c = &counts{verdicts: map[triage.Verdict]int{}, paths: map[string]int{}}
			per[s.group] = c
			order = append(order, s.group)
		}
		c.n++
		c.verdicts[ds[i].Verdict]++
		c.paths[ds[i].Path]++
		spam := ds[i].Verdict == triage.Spam
		switch {
		case spam && s.group.Spam():
			tp++
		case spam:
			fp++
		case s.group.Spam():
			fn++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (no model)\n", title)
	fmt.Fprintf(&b, "| group | messages | spam | relevant | skip | paths |\n|---|---|---|---|---|---|\n")
	for _, g := range order {
		c := per[g]
		var paths []string
		for _, p := range slices.Sorted(maps.Keys(c.paths)) {
			paths = append(paths, fmt.Sprintf("%s %d", p, c.paths[p]))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", g, c.n, c.verdicts[triage.Spam], c.verdicts[triage.Relevant], c.verdicts[triage.Skip], strings.Join(paths, ", "))
	}
	precision, recall := ratio(tp, tp+fp), ratio(tp, tp+fn)
	fmt.Fprintf(&b, "spam: precision %s (%d of %d marked spam are spam), recall %s (%d of %d spam caught)", precision, tp, tp+fp, recall, tp, tp+fn)
	tb.Log(b.String())
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

// TestDevReport triages the development groups without a model, prints
// the figures, and asserts only properties that must hold whatever the
// figures are.
func TestDevReport(t *testing.T) {
	c := corpustest.ForTest(t)
	samples := loadSamples(t, c, corpus.DevGroups())
	p := noModel(t)
	ds := triageAll(t, p, samples)
	report(t, "development groups", samples, ds)

	for i, s := range samples {
		d := ds[i]
		if d.Reason == "" || d.Path == "" || d.Confidence <= 0 || d.Confidence > 1 {
			t.Errorf("%s: incomplete decision %+v", s.msg.ID, d)
		}
		// Deterministic.
		if again, _ := p.Triage(context.Background(), s.msg); again != d {
			t.Errorf("%s: second run decided %+v, first %+v", s.msg.ID, again, d)
		}
		// List and bulk headers never make or unmake spam: removing them,
		// or adding them to a mail without, leaves "is it spam" unchanged.
		bare, listy := s.msg, s.msg
		bare.ListID, bare.ListUnsubscribe, bare.Precedence = "", "", ""
		listy.ListID, listy.ListUnsubscribe, listy.Precedence = "<dev.lists.example.org>", "<mailto:leave@lists.example.org>", "bulk"
		for _, variant := range []triage.Message{bare, listy} {
			if v, _ := p.Triage(context.Background(), variant); (v.Verdict == triage.Spam) != (d.Verdict == triage.Spam) {
				t.Errorf("%s: list headers changed the spam verdict: %s vs %s", s.msg.ID, d.Path, v.Path)
			}
		}
		if !s.group.Spam() && d.Verdict == triage.Spam && s.msg.ListID != "" {
			t.Logf("%s: ham from list %s marked spam by %s (%s)", s.msg.ID, s.msg.ListID, d.Path, d.Reason)
		}
	}
}

// The collector's marks play no part: the decisions on the raw parse and
// on the neutralised one are the same, and the body changes nothing.
func TestDevDecisionsIgnoreCollectorAndBody(t *testing.T) {
	c := corpustest.ForTest(t)
	p := noModel(t)
	for _, g := range corpus.DevGroups() {
		items, err := c.Load(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			withBody, err := mailtext.Parse(it.Raw, mailtext.Options{BodyRunes: triage.ModelBodyRunes})
			if err != nil {
				t.Fatal(err)
			}
			neutral := withBody
			neutral.To = slices.Clone(withBody.To)
			neutral.Cc = slices.Clone(withBody.Cc)
			corpus.Neutralize(&neutral)
			neutral.Body = ""
			a, _ := p.Triage(context.Background(), withBody)
			b, _ := p.Triage(context.Background(), neutral)
			if a != b {
				t.Errorf("%s/%s: %s with the collector's addresses and body, %s without", g, it.Name, a.Path, b.Path)
			}
		}
	}
}
