package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Limits on one rule's filter, checked when it is saved: a filter that
// passes them evaluates in bounded time on any item.
const (
	// MaxDepth is how deeply $and, $or and $not may nest.
	MaxDepth = 12
	// MaxNodes is how many conditions and combinators one filter may hold
	// (a Gmail rule of the old allow/deny lists, migrated with 200 domains
	// and 200 subject words, takes about 400).
	MaxNodes = 500
	// MaxRegexLen caps a regex pattern's length in bytes.
	MaxRegexLen = 256
	// maxRegexInsts caps the size of a compiled pattern: RE2 matches in
	// time linear in the text, times this.
	maxRegexInsts = 2000
	// MaxValueLen caps a string operand (equals, contains, …) in bytes.
	MaxValueLen = 1024
	// MaxInValues caps the values of one in or not_in.
	MaxInValues = 500
	// MaxRuleCost is the most a filter may cost on the worst item of its
	// kind, in steps (roughly bytes of text scanned): a filter that could
	// cost more is refused when it is saved.
	MaxRuleCost = 2 << 20
	// ItemBudget is what all of a scout's rules may spend on one item, in
	// the same steps; the rules after the budget ran out are not tried on
	// that item (and its trail says so).
	ItemBudget = 8 << 20
)

// Operators.
const (
	opEquals      = "equals"
	opNotEquals   = "not_equals"
	opStartsWith  = "starts_with"
	opEndsWith    = "ends_with"
	opContains    = "contains"
	opContainWord = "contains_word"
	opRegex       = "regex"
	opGT          = "gt"
	opGTE         = "gte"
	opLT          = "lt"
	opLTE         = "lte"
	opIn          = "in"
	opNotIn       = "not_in"
	opExists      = "exists"
	// modCase is not an operator: it makes a condition's string
	// comparisons case-sensitive.
	modCase = "case_sensitive"
)

// Operators lists the operators of the grammar, for documentation.
func Operators() []string {
	return []string{opEquals, opNotEquals, opStartsWith, opEndsWith, opContains, opContainWord, opRegex,
		opGT, opGTE, opLT, opLTE, opIn, opNotIn, opExists}
}

// opTypes says which field types an operator fits.
func opFits(op string, t Type) bool {
	switch op {
	case opEquals, opNotEquals, opIn, opNotIn, opExists:
		return true
	case opStartsWith, opEndsWith, opContains, opContainWord, opRegex:
		return t == TypeString || t == TypeList || t == TypeJSON
	case opGT, opGTE, opLT, opLTE:
		return t == TypeNumber || t == TypeJSON
	}
	return false
}

// Truth is a filter's verdict on an item: true, false, or unknown when it
// depends on a field the item does not carry.
type Truth uint8

const (
	False Truth = iota
	True
	Unknown
)

func (t Truth) String() string {
	switch t {
	case True:
		return "true"
	case False:
		return "false"
	}
	return "unknown"
}

func not(t Truth) Truth {
	switch t {
	case True:
		return False
	case False:
		return True
	}
	return Unknown
}

type nodeKind uint8

const (
	nodeAnd nodeKind = iota + 1
	nodeOr
	nodeNot
	nodeCond
)

// node is one compiled part of a filter.
type node struct {
	kind nodeKind
	kids []*node
	cond *cond
}

// cond is one operator applied to one field.
type cond struct {
	field Field
	op    string
	// cs makes string comparisons case-sensitive.
	cs bool
	// Operands: s (lower-cased unless cs) for string operators, words for
	// contains_word, num for numeric ones, b for exists and boolean
	// equals, set for in (strings lower-cased unless cs, numbers, bools).
	s     string
	words []string
	num   float64
	b     bool
	isNum bool // equals/not_equals compares a number
	isB   bool // equals/not_equals compares a bool
	set   []any
	re    *regexp.Regexp
	// raw is the operand as written, for explanations.
	raw string
	// cost is the most this condition can cost.
	cost int
}

// parser compiles a filter, tracking where it is for errors.
type parser struct {
	kind  string
	nodes int
}

// errAt is a filter error at a JSON pointer.
type errAt struct {
	path string
	msg  string
}

func (e *errAt) Error() string { return e.path + ": " + e.msg }

func failf(path, format string, args ...any) error {
	return &errAt{path: path, msg: fmt.Sprintf(format, args...)}
}

// pointer appends a key to a JSON pointer, escaped.
func pointer(base string, key string) string {
	key = strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
	return base + "/" + key
}

// parseFilter compiles a decoded filter (json.Number for numbers).
func (p *parser) parseFilter(v any, path string, depth int) (*node, error) {
	if depth > MaxDepth {
		return nil, failf(path, "filters nest deeper than %d levels", MaxDepth)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, failf(path, "a filter is an object like {\"subject\": {\"contains\": \"invoice\"}}, not %s", jsonKind(v))
	}
	if len(obj) == 0 {
		return nil, failf(path, "an empty filter would match everything: name a field and an operator")
	}
	keys := sortedKeys(obj)
	var parts []*node
	for _, k := range keys {
		p.nodes++
		if p.nodes > MaxNodes {
			return nil, failf(path, "the filter has more than %d conditions and combinators", MaxNodes)
		}
		kp := pointer(path, k)
		switch k {
		case "$and", "$or":
			list, ok := obj[k].([]any)
			if !ok || len(list) == 0 {
				return nil, failf(kp, "%s takes a non-empty list of filters", k)
			}
			n := &node{kind: nodeAnd}
			if k == "$or" {
				n.kind = nodeOr
			}
			for i, e := range list {
				kid, err := p.parseFilter(e, pointer(kp, strconv.Itoa(i)), depth+1)
				if err != nil {
					return nil, err
				}
				n.kids = append(n.kids, kid)
			}
			parts = append(parts, n)
		case "$not":
			kid, err := p.parseFilter(obj[k], kp, depth+1)
			if err != nil {
				return nil, err
			}
			parts = append(parts, &node{kind: nodeNot, kids: []*node{kid}})
		default:
			if strings.HasPrefix(k, "$") {
				return nil, failf(kp, "unknown combinator %q (want $and, $or or $not)", k)
			}
			f, ok := lookupField(p.kind, k)
			if !ok {
				return nil, failf(kp, "%s scouts have no field %q (their fields: %s)", p.kind, clipMsg(k), fieldNames(p.kind))
			}
			conds, err := p.parseConds(f, obj[k], kp)
			if err != nil {
				return nil, err
			}
			parts = append(parts, conds...)
		}
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return &node{kind: nodeAnd, kids: parts}, nil
}

// parseConds compiles a field's operator object; several operators are
// all required.
func (p *parser) parseConds(f Field, v any, path string) ([]*node, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, failf(path, "a field takes an object of operators like {\"equals\": \"x\"}, not %s", jsonKind(v))
	}
	cs := false
	if raw, ok := obj[modCase]; ok {
		b, ok := raw.(bool)
		if !ok {
			return nil, failf(pointer(path, modCase), "case_sensitive is true or false")
		}
		cs = b
	}
	var out []*node
	for _, op := range sortedKeys(obj) {
		if op == modCase {
			continue
		}
		op0 := pointer(path, op)
		if !slices.Contains(Operators(), op) {
			return nil, failf(op0, "unknown operator %q (want one of %s)", clipMsg(op), strings.Join(Operators(), ", "))
		}
		if !opFits(op, f.Type) {
			return nil, failf(op0, "%s does not apply to %s, a %s field", op, f.Name, f.Type)
		}
		if len(out) > 0 {
			p.nodes++
			if p.nodes > MaxNodes {
				return nil, failf(path, "the filter has more than %d conditions and combinators", MaxNodes)
			}
		}
		c, err := compileCond(f, op, cs, obj[op], op0)
		if err != nil {
			return nil, err
		}
		out = append(out, &node{kind: nodeCond, cond: c})
	}
	if len(out) == 0 {
		return nil, failf(path, "no operator: say how to compare %s (equals, contains, in, …)", f.Name)
	}
	return out, nil
}

// compileCond checks an operand against the field and prepares it.
func compileCond(f Field, op string, cs bool, v any, path string) (*cond, error) {
	c := &cond{field: f, op: op, cs: cs, cost: 1}
	fold := func(s string) string {
		if cs {
			return s
		}
		return strings.ToLower(s)
	}
	// scanCost is the most a string operator reads of the field.
	scanCost := f.MaxBytes
	if f.Type == TypeList {
		scanCost *= MaxListItems
	}
	switch op {
	case opExists:
		b, ok := v.(bool)
		if !ok {
			return nil, failf(path, "exists is true or false")
		}
		c.b, c.raw = b, strconv.FormatBool(b)
	case opEquals, opNotEquals:
		if err := c.scalar(f, v, path, fold); err != nil {
			return nil, err
		}
		c.cost += scanCost / 16 // a comparison reads at most the operand's length per value
	case opStartsWith, opEndsWith, opContains:
		s, err := stringOperand(v, path, op)
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, failf(path, "%s needs a non-empty string", op)
		}
		c.s, c.raw = fold(s), s
		c.cost += scanCost
	case opContainWord:
		s, err := stringOperand(v, path, op)
		if err != nil {
			return nil, err
		}
		c.words = wordsOf(s)
		if len(c.words) == 0 {
			return nil, failf(path, "contains_word needs a word (letters or digits)")
		}
		if cs {
			c.words = caseWords(s)
		}
		c.raw = s
		c.cost += 2 * scanCost
	case opRegex:
		s, ok := v.(string)
		if !ok {
			return nil, failf(path, "regex needs a string pattern")
		}
		re, err := compileRegex(s, cs)
		if err != nil {
			return nil, failf(path, "%s", err.Error())
		}
		c.re, c.raw = re, s
		c.cost += 4 * scanCost // RE2: linear in the text, with a constant for the pattern
	case opGT, opGTE, opLT, opLTE:
		n, ok := v.(json.Number)
		if !ok {
			return nil, failf(path, "%s needs a number", op)
		}
		x, err := number(n, path)
		if err != nil {
			return nil, err
		}
		c.num, c.raw = x, n.String()
	case opIn, opNotIn:
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return nil, failf(path, "%s takes a non-empty list of values", op)
		}
		if len(list) > MaxInValues {
			return nil, failf(path, "%s has %d values, more than %d", op, len(list), MaxInValues)
		}
		var shown []string
		for i, e := range list {
			one := &cond{}
			if err := one.scalar(f, e, pointer(path, strconv.Itoa(i)), fold); err != nil {
				return nil, err
			}
			switch {
			case one.isNum:
				c.set = append(c.set, one.num)
			case one.isB:
				c.set = append(c.set, one.b)
			default:
				c.set = append(c.set, one.s)
			}
			shown = append(shown, one.raw)
		}
		c.raw = "[" + strings.Join(shown, ", ") + "]"
		// A set lookup per value: its cost does not grow with the list.
		c.cost += scanCost / 16
	}
	return c, nil
}

// scalar reads an equals operand (or one value of in) of the field's type.
func (c *cond) scalar(f Field, v any, path string, fold func(string) string) error {
	switch x := v.(type) {
	case string:
		if f.Type == TypeNumber || f.Type == TypeBool {
			return failf(path, "%s is a %s field: compare it with a %s, not a string", f.Name, f.Type, f.Type)
		}
		if len(x) > MaxValueLen {
			return failf(path, "the value is longer than %d bytes", MaxValueLen)
		}
		c.s, c.raw = fold(x), strconv.Quote(clipMsg(x))
	case json.Number:
		if f.Type != TypeNumber && f.Type != TypeJSON {
			return failf(path, "%s is a %s field: compare it with a string, not a number", f.Name, f.Type)
		}
		n, err := number(x, path)
		if err != nil {
			return err
		}
		c.num, c.isNum, c.raw = n, true, x.String()
	case bool:
		if f.Type != TypeBool && f.Type != TypeJSON {
			return failf(path, "%s is a %s field: compare it with a %s, not true or false", f.Name, f.Type, typeNoun(f.Type))
		}
		c.b, c.isB, c.raw = x, true, strconv.FormatBool(x)
	default:
		return failf(path, "the value must be a string, a number or true/false, not %s", jsonKind(v))
	}
	return nil
}

func typeNoun(t Type) string {
	if t == TypeNumber {
		return "number"
	}
	return "string"
}

func stringOperand(v any, path, op string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", failf(path, "%s needs a string", op)
	}
	if len(s) > MaxValueLen {
		return "", failf(path, "the value is longer than %d bytes", MaxValueLen)
	}
	return s, nil
}

func number(n json.Number, path string) (float64, error) {
	x, err := n.Float64()
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, failf(path, "%s is not a usable number", clipMsg(n.String()))
	}
	return x, nil
}

// compileRegex compiles an RE2 pattern within the limits: its length, and
// the size of its program (a{1000}{1000}-style blow-ups are refused).
func compileRegex(s string, cs bool) (*regexp.Regexp, error) {
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
	re, err := syntax.Parse(s, flags)
	if err != nil {
		return nil, fmt.Errorf("the regex does not compile (RE2 syntax): %v", err)
	}
	prog, err := syntax.Compile(re.Simplify())
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
	out, err := regexp.Compile(prefix + s)
	if err != nil {
		return nil, fmt.Errorf("the regex does not compile (RE2 syntax): %v", err)
	}
	return out, nil
}

// worstCost is the most a filter can cost on any item.
func (n *node) worstCost() int {
	if n.kind == nodeCond {
		return n.cond.cost
	}
	total := 1
	for _, k := range n.kids {
		total += k.worstCost()
	}
	return total
}

// evaluator evaluates filters on one item within a budget.
type evaluator struct {
	it     *Item
	budget int
	// spent is set when the budget ran out: the result is then Unknown.
	spent bool
	// lower caches lower-cased field values.
	lower map[string]any
	// unknown lists the fields the item did not carry that a result
	// depended on.
	unknown []string
}

func newEvaluator(it *Item, budget int) *evaluator {
	return &evaluator{it: it, budget: budget, lower: map[string]any{}}
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
	e.budget -= 1 + c.costOn(v)
	if e.budget < 0 {
		e.spent = true
		return Unknown
	}
	switch c.op {
	case opExists:
		return truth(present(v) == c.b)
	case opNotEquals:
		return truth(!c.test(e.folded(c, v)))
	case opNotIn:
		return truth(!c.test(e.folded(c, v)))
	}
	return truth(c.test(e.folded(c, v)))
}

// costOn is what testing v costs, in steps.
func (c *cond) costOn(v any) int {
	switch x := v.(type) {
	case string:
		return c.stringCost(len(x))
	case []string:
		n := 0
		for _, s := range x {
			n += c.stringCost(len(s))
		}
		return n
	case []any:
		n := 0
		for _, s := range x {
			if str, ok := s.(string); ok {
				n += c.stringCost(len(str))
			}
		}
		return n
	}
	return 0
}

func (c *cond) stringCost(n int) int {
	switch c.op {
	case opContains, opStartsWith, opEndsWith:
		return n
	case opContainWord:
		return 2 * n
	case opRegex:
		return 4 * n
	}
	return n / 16
}

// folded returns v with its strings lower-cased for a case-insensitive
// condition (cached per field).
func (e *evaluator) folded(c *cond, v any) any {
	if c.cs {
		return v
	}
	key := c.field.Name
	if f, ok := e.lower[key]; ok {
		return f
	}
	var out any
	switch x := v.(type) {
	case string:
		out = strings.ToLower(x)
	case []string:
		l := make([]string, len(x))
		for i, s := range x {
			l[i] = strings.ToLower(s)
		}
		out = l
	case []any:
		l := make([]any, len(x))
		for i, s := range x {
			if str, ok := s.(string); ok {
				l[i] = strings.ToLower(str)
			} else {
				l[i] = s
			}
		}
		out = l
	default:
		out = v
	}
	e.lower[key] = out
	return out
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
