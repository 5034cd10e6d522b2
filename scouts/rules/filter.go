package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Limits on one rule's filter, checked when it is saved: a filter that
// passes them evaluates in bounded time on any item (with the cost model's
// limits, cost.go).
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
	// path is the condition's JSON pointer in the rule (/when/$and/1/text/regex).
	path string
	// insts is the size of a regex's compiled program.
	insts int
	// scan is the most the condition reads of its field, in bytes (every
	// value of a list); cost is the most it can cost, in steps (cost.go).
	scan int
	cost int
}

// parser compiles a filter, tracking where it is for errors.
type parser struct {
	kind  string
	nodes int
	// probe, when set, measures each costly regex on worst-case texts
	// (a rule being saved or imported, not one read back).
	probe *prober
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
		c, err := p.compileCond(f, op, cs, obj[op], op0)
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
func (p *parser) compileCond(f Field, op string, cs bool, v any, path string) (*cond, error) {
	c := &cond{field: f, op: op, cs: cs, path: path, scan: scanBytes(f)}
	fold := func(s string) string {
		if cs {
			return s
		}
		return strings.ToLower(s)
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
	case opStartsWith, opEndsWith, opContains:
		s, err := stringOperand(v, path, op)
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, failf(path, "%s needs a non-empty string", op)
		}
		c.s, c.raw = fold(s), s
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
	case opRegex:
		s, ok := v.(string)
		if !ok {
			return nil, failf(path, "regex needs a string pattern")
		}
		re, err := compileRegex(s, cs)
		if err != nil {
			return nil, failf(path, "%s", err.Error())
		}
		c.re, c.raw, c.insts = re.re, s, len(re.prog.Inst)
		if err := p.checkRegexCost(c, re); err != nil {
			return nil, err
		}
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
	}
	c.cost = c.worstCost()
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
