package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// explain says in words why a true filter is true: the conditions that
// held (at most three of an $and, the first true branch of an $or).
func (e *evaluator) explain(n *node) string {
	switch n.kind {
	case nodeAnd:
		var parts []string
		for i, k := range n.kids {
			if i == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, e.explain(k))
		}
		return strings.Join(parts, " and ")
	case nodeOr:
		for _, k := range n.kids {
			if e.eval(k) == True {
				return e.explain(k)
			}
		}
		return "one of several conditions"
	case nodeNot:
		return "not (" + describe(n.kids[0]) + ")"
	}
	return describe(n)
}

// describe writes a filter in words.
func describe(n *node) string {
	switch n.kind {
	case nodeAnd, nodeOr:
		sep := " and "
		if n.kind == nodeOr {
			sep = " or "
		}
		var parts []string
		for i, k := range n.kids {
			if i == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, describe(k))
		}
		return strings.Join(parts, sep)
	case nodeNot:
		return "not (" + describe(n.kids[0]) + ")"
	}
	c := n.cond
	val := c.raw
	switch c.op {
	case opStartsWith, opEndsWith, opContains, opContainWord, opRegex:
		val = strconv.Quote(clipMsg(c.raw))
	case opIn, opNotIn:
		val = clipMsg(c.raw)
	}
	words := map[string]string{
		opEquals: "is", opNotEquals: "is not", opStartsWith: "starts with", opEndsWith: "ends with",
		opContains: "contains", opContainWord: "contains the word", opRegex: "matches", opGT: ">", opGTE: "≥",
		opLT: "<", opLTE: "≤", opIn: "is in", opNotIn: "is not in",
	}
	if c.op == opExists {
		if c.b {
			return c.field.Name + " is set"
		}
		return c.field.Name + " is not set"
	}
	return c.field.Name + " " + words[c.op] + " " + val
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "true/false"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// clipMsg keeps quoted input short in messages.
func clipMsg(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return cut(s, max) + "…"
}
