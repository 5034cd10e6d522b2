package definition

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Change is one difference between two versions of a definition: the
// JSON pointer of what changed and its value before and after as JSON
// (empty where it was absent).
type Change struct {
	Path string `json:"path"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Diff lists what differs between two documents (as Marshal writes
// them), leaf by leaf, in path order (an array's items by index: /rules/2
// before /rules/10). Arrays are compared by index, so a
// rule inserted at the top shows as each rule after it changing.
func Diff(a, b []byte) ([]Change, error) {
	fa, err := flatten(a)
	if err != nil {
		return nil, err
	}
	fb, err := flatten(b)
	if err != nil {
		return nil, err
	}
	var out []Change
	for p, va := range fa {
		if vb, ok := fb[p]; !ok || vb != va {
			out = append(out, Change{Path: p, From: va, To: fb[p]})
		}
	}
	for p, vb := range fb {
		if _, ok := fa[p]; !ok {
			out = append(out, Change{Path: p, To: vb})
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return comparePaths(x.Path, y.Path) })
	return out, nil
}

// comparePaths orders JSON pointers segment by segment, numbers (array
// indexes) by value.
func comparePaths(a, b string) int {
	sa, sb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := range min(len(sa), len(sb)) {
		x, y := sa[i], sb[i]
		if x == y {
			continue
		}
		if isIndex(x) && isIndex(y) {
			if len(x) != len(y) {
				return len(x) - len(y)
			}
		}
		return strings.Compare(x, y)
	}
	return len(sa) - len(sb)
}

// isIndex reports whether a segment is an array index as flatten writes
// one: digits, without leading zeros.
func isIndex(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func flatten(doc []byte) (map[string]string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("definition: diff: %w", err)
	}
	out := map[string]string{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				out[p] = "{}"
			}
			for k, e := range t {
				walk(p+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), e)
			}
		case []any:
			if len(t) == 0 {
				out[p] = "[]"
			}
			for i, e := range t {
				walk(p+"/"+strconv.Itoa(i), e)
			}
		default:
			b, _ := json.Marshal(t)
			out[p] = string(b)
		}
	}
	walk("", v)
	return out, nil
}
