package rules

import (
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"
)

// The probe: when a rule is saved or imported, each regex whose modelled
// cost is worth it runs on the worst texts that can be built for it, on
// the thread's CPU clock, and is refused if it takes more than probeSlack
// times what the model says (probeFloor at least, so that a pause of the
// machine is not taken for the regex). The model bounds the cost of what
// is accepted; the probe checks the model's constant on this machine.
const (
	// probeFrom is the modelled cost from which a regex is probed: below
	// it, even a model off by the slack costs a few milliseconds.
	probeFrom  = 1_000_000
	probeSlack = 4
	probeFloor = 20 * time.Millisecond
	// probeRunes is how many of a program's runes the probe builds texts
	// of.
	probeRunes = 3
)

// prober measures regexes on worst-case texts.
type prober struct {
	clock Clock
}

// check runs a regex condition on its probe texts.
func (p *prober) check(c *cond, re *compiledRegex) error {
	n := c.field.MaxBytes // the longest single value the regex meets
	if c.field.Type == TypeJSON {
		n = MaxShortField
	}
	limit := max(probeFloor, probeSlack*time.Duration(c.valueCost(n)))
	elapsed, stop := p.clock()
	defer stop()
	for _, text := range probeTexts(re, n) {
		t0 := elapsed()
		re.re.MatchString(text)
		if took := elapsed() - t0; took > limit {
			sample, _ := utf8.DecodeRuneInString(text)
			return failf(c.path, "the regex took %v of CPU on a %d-byte text of %q and the like, more than the %v its cost allows (%d instructions, %d steps per byte): repeat less or test a shorter field",
				took.Round(time.Millisecond), len(text), sample, limit.Round(time.Millisecond), c.insts, weightRegexInst*c.insts)
		}
	}
	return nil
}

// probeTexts builds the texts a regex is probed on, n bytes each: for
// each of the first runes its program reads, one of that rune alone, and
// one cut every count-1 runes by a rune that rune's class refuses, so that
// a counted repetition (\pL{1000}) keeps its matches in progress at every
// byte without ever completing one.
func probeTexts(re *compiledRegex, n int) []string {
	var out []string
	seen := map[rune]bool{}
	for _, in := range re.prog.Inst {
		r, ok := sampleRune(in)
		if !ok || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, fill(r, 0, 0, n))
		if k := re.maxRepeat - 1; k > 1 {
			if breaker, ok := refusedBy(in); ok {
				out = append(out, fill(r, breaker, k, n))
			}
		}
		if len(seen) == probeRunes {
			break
		}
	}
	return out
}

// sampleRune is a rune an instruction reads, if it reads one.
func sampleRune(in syntax.Inst) (rune, bool) {
	switch in.Op {
	case syntax.InstRune, syntax.InstRune1:
		if len(in.Rune) > 0 {
			return in.Rune[0], true
		}
	case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return 'a', true
	}
	return 0, false
}

// refusedBy finds a rune the instruction does not read.
func refusedBy(in syntax.Inst) (rune, bool) {
	switch in.Op {
	case syntax.InstRuneAny:
		return 0, false
	case syntax.InstRuneAnyNotNL:
		return '\n', true
	}
	for _, r := range []rune{' ', '\n', '0', 'a', '.', 'é', '漢', 0, utf8.MaxRune} {
		if !in.MatchRune(r) {
			return r, true
		}
	}
	return 0, false
}

// fill writes r over n bytes, every run of k followed by breaker when k is
// set.
func fill(r, breaker rune, k, n int) string {
	var b strings.Builder
	b.Grow(n)
	run := 0
	for {
		next := r
		if k > 0 && run == k {
			next, run = breaker, -1
		}
		if b.Len()+utf8.RuneLen(next) > n {
			return b.String()
		}
		b.WriteRune(next)
		run++
	}
}
