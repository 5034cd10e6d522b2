package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// MinLimit is the smallest limit JSON and Value honour: below it there is
// no room to say what was cut.
const MinLimit = 64

// JSON returns raw with its credentials redacted (Value), encoded in at
// most limit bytes (at least MinLimit), and whether anything was cut.
// Text that is not JSON is kept as one redacted, cut string, so what is
// returned is always valid JSON.
func JSON(raw []byte, limit int, secrets ...string) (json.RawMessage, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers stay exactly as written
	if err := d.Decode(&v); err != nil || d.More() {
		v = string(raw)
	}
	v, cut := Value(v, limit, secrets...)
	return encode(v), cut
}

// Value returns v, a decoded JSON value, with every string passed through
// String, every value under a key that Key calls secret replaced by Marker
// (true, false and null are kept: they say whether, not what), and cut
// structurally until its encoding fits in limit bytes (at least MinLimit):
// long strings end with "… N more bytes", long arrays with a last item
// "… N more items", large objects with a key "…" whose value is "N more
// keys", and containers nested too deep become "… object of N keys" or "…
// array of N items". It reports whether anything was cut. v is not
// modified.
func Value(v any, limit int, secrets ...string) (any, bool) {
	limit = max(limit, MinLimit)
	r := redactor{secrets: secrets, limit: limit}
	v = r.value(v)
	size := len(encode(v))
	if size <= limit {
		return plain(v), r.cut
	}
	// Each level halves what the one before it keeps; the first that fits
	// keeps the most. Cutting works on the redacted value, so a secret is
	// never cut in two and left half readable.
	for l := range levels {
		if out := cutValue(v, levels[l], 0); len(encode(out)) <= limit {
			return plain(out), true
		}
	}
	// Nothing structural fits (thousands of tiny keys, a number of
	// thousands of digits): say how much there was.
	return fmt.Sprintf("… %d bytes cut", size), true
}

// level bounds a value's shape.
type level struct {
	str   int // bytes of a string or a key
	items int // items of an array, keys of an object
	depth int // containers within containers
}

var levels = func() []level {
	var out []level
	l := level{str: 4096, items: 100, depth: 10}
	for {
		out = append(out, l)
		if l.str == 16 && l.items == 1 && l.depth == 1 {
			return out
		}
		l = level{str: max(16, l.str/2), items: max(1, l.items/2), depth: max(1, l.depth-1)}
	}
}()

// redactor redacts a value. Parts too long to ever fit in limit are cut
// first (longString, longArray), so a megabyte of text costs a megabyte's
// JSON decoding, not a megabyte of pattern matching.
type redactor struct {
	secrets []string
	limit   int
	cut     bool // a string was cut before it was known whether it fits
}

// preCutSlack is what a string keeps beyond the longest a cut keeps
// (levels[0].str): a credential that starts before that point ends
// within the slack, so it is redacted whole before the string is cut.
const preCutSlack = 16 << 10

func (r *redactor) value(v any) any {
	switch x := v.(type) {
	case string:
		if keep := max(r.limit, levels[0].str) + preCutSlack; len(x) > keep {
			r.cut = true
			kept := x[:runeStart(x, keep)]
			return longString{kept: String(kept, r.secrets...), more: len(x) - len(kept)}
		}
		return String(x, r.secrets...)
	case []any:
		// n items take at least 2n+1 bytes: past limit/2 items the array
		// will be cut, to at most levels[0].items.
		var more int
		if len(x) > r.limit/2 {
			x, more = x[:levels[0].items], len(x)-levels[0].items
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.value(e)
		}
		if more > 0 {
			return longArray{items: out, more: more}
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if Key(k) && e != nil {
				if _, isBool := e.(bool); !isBool {
					out[k] = Marker
					continue
				}
			}
			out[k] = r.value(e)
		}
		return out
	}
	return v
}

// longString is a string cut before redaction: kept, then more bytes.
type longString struct {
	kept string
	more int
}

// longArray is an array cut before redaction: items, then more.
type longArray struct {
	items []any
	more  int
}

// plain turns the pre-cut parts of v into what they stand for.
func plain(v any) any {
	switch x := v.(type) {
	case longString:
		return fmt.Sprintf("%s… %d more bytes", x.kept, x.more)
	case longArray:
		out := make([]any, 0, len(x.items)+1)
		for _, e := range x.items {
			out = append(out, plain(e))
		}
		return append(out, fmt.Sprintf("… %d more items", x.more))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e)
		}
		return out
	}
	return v
}

func (s longString) MarshalJSON() ([]byte, error) { return encode(plain(s)), nil }
func (a longArray) MarshalJSON() ([]byte, error)  { return encode(plain(a)), nil }

func cutValue(v any, l level, depth int) any {
	switch x := v.(type) {
	case string:
		return cutString(x, l.str, 0)
	case longString:
		return cutString(x.kept, l.str, x.more)
	case longArray:
		return cutArray(x.items, x.more, l, depth)
	case []any:
		return cutArray(x, 0, l, depth)
	case map[string]any:
		if depth >= l.depth {
			return fmt.Sprintf("… object of %d keys", len(x))
		}
		// In key order, so the same value is always cut the same way.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(map[string]any, min(len(x), l.items)+1)
		for _, k := range keys {
			if len(out) == l.items {
				break
			}
			ck := cutString(k, l.str, 0)
			if _, taken := out[ck]; taken {
				continue // two long keys cut alike: the second counts as cut
			}
			out[ck] = cutValue(x[k], l, depth+1)
		}
		if more := len(x) - len(out); more > 0 {
			out["…"] = fmt.Sprintf("%d more keys", more)
		}
		return out
	}
	return v
}

// cutArray keeps at most l.items of x, which stands for len(x)+more
// items, and says how many it cut.
func cutArray(x []any, more int, l level, depth int) any {
	if depth >= l.depth {
		return fmt.Sprintf("… array of %d items", len(x)+more)
	}
	n := min(len(x), l.items)
	out := make([]any, 0, n+1)
	for _, e := range x[:n] {
		out = append(out, cutValue(e, l, depth+1))
	}
	if more += len(x) - n; more > 0 {
		out = append(out, fmt.Sprintf("… %d more items", more))
	}
	return out
}

// cutString keeps at most n bytes of s, which stands for len(s)+more
// bytes, on a rune boundary, and says how many it cut.
func cutString(s string, n, more int) string {
	i := len(s)
	if i > n {
		i = runeStart(s, n)
	}
	if more += len(s) - i; more == 0 {
		return s
	}
	return fmt.Sprintf("%s… %d more bytes", s[:i], more)
}

// runeStart is the start of the rune at byte n of s (n < len(s)).
func runeStart(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// encode writes v as compact JSON, without escaping <, > and & (what is
// stored is read by the window and the CLI, not pasted into HTML).
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return json.RawMessage("null") // unreachable for decoded JSON
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
