package rules

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"time"
)

// The cost model. What a condition costs is counted in steps, each about a
// nanosecond of one core of the machines the weights were measured on (two
// cores, Go 1.26): each weight is the worst time per byte measured for its
// operation on adversarial texts, rounded up. A filter's worst cost — each
// condition on the longest values its field can hold — is checked when the
// rule is saved; on an item each condition is charged for the values it
// actually reads, and a scout's rules share the item's budget.
const (
	// MaxRuleCost is the most a filter may cost on the worst item of its
	// kind (about 0.1 s): a filter, or a single condition, that could cost
	// more is refused when it is saved.
	MaxRuleCost = 100_000_000
	// ItemBudget is what all of a scout's rules may spend on one item, in
	// the same steps (about 0.4 s); the rule it runs out on and the rules
	// after it are not tried on that item, and its trail says so.
	ItemBudget = 400_000_000
	// ItemTime is the CPU time all of a scout's rules may take on one item,
	// measured on the evaluating thread's clock (so that a busy machine
	// does not count against it): the backstop for a machine slower than
	// the model's, or a text the model misjudges. It ends evaluation the
	// way ItemBudget does.
	ItemTime = 500 * time.Millisecond
)

// Weights, in steps per byte of the value a condition reads.
const (
	// weightContains: strings.Contains takes up to 1.4 ns a byte (a needle
	// of 63 a's and a b, over a text of a's).
	weightContains = 2
	// weightAffix: starts_with and ends_with compare the operand's length
	// at most; counted as a byte of the value each, as they always were.
	weightAffix = 1
	// weightWords: contains_word splits the text into words, up to 47 ns a
	// byte (short ASCII words, lower-cased).
	weightWords = 48
	// weightLower: a case-insensitive condition reads its field lower-cased,
	// once per field and item: up to 9.6 ns a byte (accented capitals).
	weightLower = 10
	// weightRegexInst is charged per instruction of a regex's compiled
	// program and byte of text: Go's NFA may hold a thread on every
	// instruction at every byte (its backtracker visits each instruction
	// and position once at most, its one-pass matcher less). Measured: 3 to
	// 16 ns for programs up to 100 instructions, up to 30 for programs of
	// 500 instructions of large classes ([\x{0}-\x{10FFFF}]{500}x); what
	// the weight misjudges, the probe (when a rule is saved) and ItemTime
	// (on each item) catch.
	weightRegexInst = 16
	// equalsDivisor: equality and set lookups read at most the operand,
	// a sixteenth of a step per byte of the value.
	equalsDivisor = 16
)

// scanBytes is the most a condition on f reads: its longest value, every
// value of a list. The strings of a webhook's JSON body together hold at
// most the body's 64 KiB, however many a list of them has.
func scanBytes(f Field) int {
	switch f.Type {
	case TypeList:
		return f.MaxBytes * MaxListItems
	case TypeJSON:
		return MaxTextField
	}
	return f.MaxBytes
}

// valueCost is what the condition costs on n bytes of its field's text.
func (c *cond) valueCost(n int) int {
	switch c.op {
	case opExists:
		return 0
	case opContains:
		return weightContains * n
	case opStartsWith, opEndsWith:
		return weightAffix * n
	case opContainWord:
		return weightWords * n
	case opRegex:
		return weightRegexInst * c.insts * n
	}
	return n / equalsDivisor
}

// worstCost is the most the condition costs on any item (the lower-casing
// of its field is counted once per filter, by node.worstCost).
func (c *cond) worstCost() int { return 1 + c.valueCost(c.scan) }

// lowers reports whether the condition reads its field lower-cased.
func (c *cond) lowers() bool {
	return !c.cs && c.op != opExists && c.field.Type != TypeNumber && c.field.Type != TypeBool
}

// worstCost is the most a filter can cost on any item, and its costliest
// condition.
func (n *node) worstCost() (int, *cond) {
	lowered := map[string]int{}
	var top *cond
	total := n.cost(lowered, &top)
	for _, c := range lowered {
		total += c
	}
	return total, top
}

func (n *node) cost(lowered map[string]int, top **cond) int {
	if n.kind == nodeCond {
		c := n.cond
		if c.lowers() {
			lowered[c.field.Name] = weightLower * c.scan
		}
		if *top == nil || c.cost > (*top).cost {
			*top = c
		}
		return c.cost
	}
	total := 1
	for _, k := range n.kids {
		total += k.cost(lowered, top)
	}
	return total
}

// compiledRegex is a pattern compiled by both the regexp package (to
// match) and regexp/syntax (to measure).
type compiledRegex struct {
	re   *regexp.Regexp
	prog *syntax.Prog
	// maxRepeat is the largest count of a counted repetition ({1000}), 0
	// when there is none.
	maxRepeat int
}

// compileRegex compiles an RE2 pattern within the limits: its length, and
// the size of its program (a{1000}{1000}-style blow-ups are refused).
func compileRegex(s string, cs bool) (*compiledRegex, error) {
	if s == "" {
		return nil, fmt.Errorf("the regex is empty")
	}
	if len(s) > MaxRegexLen {
		return nil, fmt.Errorf("the regex is %d bytes long, more than %d", len(s), MaxRegexLen)
	}
	flags := syntax.Perl
	if !cs {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(s, flags)
	if err != nil {
		return nil, fmt.Errorf("the regex does not compile (RE2 syntax): %v", err)
	}
	// The program the regexp package runs: it compiles the same tree the
	// same way (Simplify, then Compile).
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, fmt.Errorf("the regex does not compile (RE2 syntax): %v", err)
	}
	if len(prog.Inst) > maxRegexInsts {
		return nil, fmt.Errorf("the regex is too complex (%d steps, at most %d): simplify its repetitions", len(prog.Inst), maxRegexInsts)
	}
	prefix := ""
	if !cs {
		prefix = "(?i)"
	}
	re, err := regexp.Compile(prefix + s)
	if err != nil {
		return nil, fmt.Errorf("the regex does not compile (RE2 syntax): %v", err)
	}
	return &compiledRegex{re: re, prog: prog, maxRepeat: maxRepeat(tree)}, nil
}

// maxRepeat finds the largest count of a counted repetition in a parsed
// pattern.
func maxRepeat(re *syntax.Regexp) int {
	n := 0
	if re.Op == syntax.OpRepeat {
		n = max(re.Min, re.Max)
	}
	for _, s := range re.Sub {
		n = max(n, maxRepeat(s))
	}
	return n
}

// checkRegexCost refuses a regex condition that could cost more than a
// rule may, by the model and, when the rule is being saved, by measure.
func (p *parser) checkRegexCost(c *cond, re *compiledRegex) error {
	cost := c.worstCost()
	if cost > MaxRuleCost {
		return failf(c.path, "the regex could cost up to %d steps on the longest %s (%d bytes), more than a rule's %d: its program has %d instructions, "+
			"each costing %d steps per byte of text; repeat less (a class repeated {1000} times keeps 1000 matches in progress at every byte) or test a shorter field",
			cost, c.field.Name, c.scan, MaxRuleCost, c.insts, weightRegexInst)
	}
	if p.probe == nil || cost < probeFrom {
		return nil
	}
	return p.probe.check(c, re)
}
