package rules

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Item is what rules read of one item: each field it knows. A field that
// is absent from Fields is unknown (a relay-triaged mail's labels, a
// stored card's body): a condition on it is neither true nor false, and a
// rule only matches when its filter is true, so a rule never fires on a
// guess.
type Item struct {
	Kind string
	// Fields holds each known field's value: a string, []string, float64
	// or bool, per the field's Type. Build it with Set* to have values cut
	// to the fields' limits.
	Fields map[string]any
	// Body is a webhook's body decoded as JSON, for body.x fields: nil when
	// the body is not a JSON object. BodyKnown says whether the body was
	// seen at all.
	Body      map[string]any
	BodyKnown bool
	// Received is when the item arrived, for templates ({{.received}}).
	Received time.Time
}

// NewItem returns an empty item of kind: every field unknown.
func NewItem(kind string) Item { return Item{Kind: kind, Fields: map[string]any{}} }

// SetString records a text field, cut to the field's limit.
func (it *Item) SetString(name, v string) {
	it.Fields[name] = cut(v, maxBytesOf(it.Kind, name))
}

// SetList records a list field, cut to MaxListItems entries.
func (it *Item) SetList(name string, vs []string) {
	n := maxBytesOf(it.Kind, name)
	out := make([]string, 0, min(len(vs), MaxListItems))
	for _, v := range vs {
		if len(out) == MaxListItems {
			break
		}
		out = append(out, cut(v, n))
	}
	it.Fields[name] = out
}

// SetNumber records a number field.
func (it *Item) SetNumber(name string, v float64) { it.Fields[name] = v }

// SetBool records a true/false field.
func (it *Item) SetBool(name string, v bool) { it.Fields[name] = v }

// SetBody records a webhook's body: its text, and its fields when it is a
// JSON object.
func (it *Item) SetBody(text string) {
	it.SetString("body", text)
	it.BodyKnown = true
	it.Body = nil
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") || len(t) > MaxTextField {
		return
	}
	var m map[string]any
	if json.Unmarshal([]byte(t), &m) == nil {
		it.Body = m
	}
}

// value returns a field's value: known reports whether the item knows it;
// v is nil when the field is known to be absent (a body without that JSON
// field).
func (it *Item) value(name string) (v any, known bool) {
	if strings.HasPrefix(name, BodyFieldPrefix) && it.Kind == KindWebhook {
		if !it.BodyKnown {
			return nil, false
		}
		var cur any = it.Body
		for _, p := range strings.Split(strings.TrimPrefix(name, BodyFieldPrefix), ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, true
			}
			cur = m[p]
		}
		return jsonValue(cur), true
	}
	v, known = it.Fields[name]
	return v, known
}

// jsonValue turns a decoded JSON value into what conditions compare: a
// string (cut), a float64, a bool, a list of scalar strings, or nil.
func jsonValue(v any) any {
	switch x := v.(type) {
	case string:
		return cut(x, MaxShortField)
	case float64, bool:
		return x
	case []any:
		var out []any
		for _, e := range x {
			if len(out) == MaxListItems {
				break
			}
			switch s := e.(type) {
			case string:
				out = append(out, cut(s, MaxShortField))
			case float64, bool:
				out = append(out, s)
			}
		}
		return out
	}
	return nil // null, objects: nothing a condition compares
}

func maxBytesOf(kind, name string) int {
	if f, ok := lookupField(kind, name); ok && f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return MaxShortField
}

// cut shortens s to at most n bytes without splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
