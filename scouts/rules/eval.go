package rules

import (
	"slices"
	"strings"
	"unicode"
)

// evaluator evaluates filters on one item within a budget.
type evaluator struct {
	it     *Item
	budget int
	// meter reads the item's clock; nil counts steps only.
	meter *itemMeter
	// spent is set when the budget ran out (steps, or time when timeUp
	// is set too): the result is then Unknown.
	spent, timeUp bool
	// lower caches lower-cased field values.
	lower map[string]any
	// unknown lists the fields the item did not carry that a result
	// depended on.
	unknown []string
}

func newEvaluator(it *Item, budget int, m *itemMeter) *evaluator {
	return &evaluator{it: it, budget: budget, meter: m, lower: map[string]any{}}
}

// charge spends n steps, and reports false once the item's budget or time
// has run out: the condition is then not run.
func (e *evaluator) charge(n int) bool {
	if n > e.budget {
		e.spent = true
		return false
	}
	if e.meter.timeUp(n) {
		e.spent, e.timeUp = true, true
		return false
	}
	e.budget -= n
	return true
}

// eval returns the filter's truth on the item, with Kleene logic for
// unknown fields: false wins an $and, true wins an $or.
func (e *evaluator) eval(n *node) Truth {
	switch n.kind {
	case nodeAnd:
		out := True
		for _, k := range n.kids {
			switch e.eval(k) {
			case False:
				return False
			case Unknown:
				out = Unknown
			}
		}
		return out
	case nodeOr:
		out := False
		for _, k := range n.kids {
			switch e.eval(k) {
			case True:
				return True
			case Unknown:
				out = Unknown
			}
		}
		return out
	case nodeNot:
		return not(e.eval(n.kids[0]))
	}
	return e.cond(n.cond)
}

func (e *evaluator) cond(c *cond) Truth {
	if e.spent {
		return Unknown
	}
	v, known := e.it.value(c.field.Name)
	if !known {
		if !slices.Contains(e.unknown, c.field.Name) {
			e.unknown = append(e.unknown, c.field.Name)
		}
		return Unknown
	}
	if c.op == opExists {
		if !e.charge(1) {
			return Unknown
		}
		return truth(present(v) == c.b)
	}
	fv, lowering := e.folded(c, v)
	if !e.charge(lowering + 1 + c.costOn(fv)) {
		return Unknown
	}
	switch c.op {
	case opNotEquals, opNotIn:
		return truth(!c.test(fv))
	}
	return truth(c.test(fv))
}

// costOn is what testing v costs, in steps.
func (c *cond) costOn(v any) int {
	return c.valueCost(textBytes(v))
}

// textBytes counts the bytes of text in a value: a string, or the strings
// of a list.
func textBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []string:
		n := 0
		for _, s := range x {
			n += len(s)
		}
		return n
	case []any:
		n := 0
		for _, s := range x {
			if str, ok := s.(string); ok {
				n += len(str)
			}
		}
		return n
	}
	return 0
}

// folded returns v with its strings lower-cased for a case-insensitive
// condition (cached per field), and what lower-casing cost when it was not
// cached. Lower-casing can lengthen a text (Ⱥ, two bytes, becomes ⱥ, three):
// the result is cut to the field's limit again, so that no condition reads
// more than the cost model counts.
func (e *evaluator) folded(c *cond, v any) (any, int) {
	if c.cs {
		return v, 0
	}
	key := c.field.Name
	if f, ok := e.lower[key]; ok {
		return f, 0
	}
	limit := c.field.MaxBytes
	lower := func(s string) string { return cut(strings.ToLower(s), limit) }
	var out any
	switch x := v.(type) {
	case string:
		out = lower(x)
	case []string:
		l := make([]string, len(x))
		for i, s := range x {
			l[i] = lower(s)
		}
		out = l
	case []any:
		l := make([]any, len(x))
		for i, s := range x {
			if str, ok := s.(string); ok {
				l[i] = lower(str)
			} else {
				l[i] = s
			}
		}
		out = l
	default:
		out = v
	}
	e.lower[key] = out
	return out, weightLower * textBytes(v)
}

// test applies the positive form of the operator (equals for not_equals,
// in for not_in) to a value: a list matches when any element does.
func (c *cond) test(v any) bool {
	switch x := v.(type) {
	case []string:
		for _, s := range x {
			if c.testOne(s) {
				return true
			}
		}
		return false
	case []any:
		for _, s := range x {
			if c.testOne(s) {
				return true
			}
		}
		return false
	}
	return c.testOne(v)
}

func (c *cond) testOne(v any) bool {
	switch x := v.(type) {
	case string:
		switch c.op {
		case opEquals, opNotEquals:
			return !c.isNum && !c.isB && x == c.s
		case opStartsWith:
			return strings.HasPrefix(x, c.s)
		case opEndsWith:
			return strings.HasSuffix(x, c.s)
		case opContains:
			return strings.Contains(x, c.s)
		case opContainWord:
			if c.cs {
				return hasWords(caseWords(x), c.words)
			}
			return hasWords(wordsOf(x), c.words)
		case opRegex:
			return c.re.MatchString(x)
		case opIn, opNotIn:
			return slices.Contains(c.set, any(x))
		}
	case float64:
		switch c.op {
		case opEquals, opNotEquals:
			return c.isNum && x == c.num
		case opGT:
			return x > c.num
		case opGTE:
			return x >= c.num
		case opLT:
			return x < c.num
		case opLTE:
			return x <= c.num
		case opIn, opNotIn:
			return slices.Contains(c.set, any(x))
		}
	case bool:
		switch c.op {
		case opEquals, opNotEquals:
			return c.isB && x == c.b
		case opIn, opNotIn:
			return slices.Contains(c.set, any(x))
		}
	}
	return false
}

// present reports whether a known value counts as existing: a non-empty
// string or list, any number or bool.
func present(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case []string:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}

func truth(b bool) Truth {
	if b {
		return True
	}
	return False
}

// wordsOf splits text into lower-case words of letters and digits, the
// way contains_word (and the Gmail rules' subject words before it) reads.
func wordsOf(s string) []string { return caseWords(strings.ToLower(s)) }

func caseWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// hasWords reports whether want appears as consecutive words of text.
func hasWords(text, want []string) bool {
	for i := 0; i+len(want) <= len(text); i++ {
		if slices.Equal(text[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
