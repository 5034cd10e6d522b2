package rules

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// TemplateData is what templates see of an item: its kind's fields under
// the names filters use ({{.subject}}, {{.from}}, {{.size}}), the time it
// arrived ({{.received}}) and, for webhooks, the JSON body as {{.json}}.
// Fields the item does not carry are empty ("", an empty list, 0, false),
// so a template renders the same way on every item of its kind.
func TemplateData(it Item) map[string]any {
	d := map[string]any{"received": it.Received}
	for _, f := range kindFields[it.Kind] {
		if f.Type == TypeJSON {
			continue
		}
		v, known := it.Fields[f.Name]
		if !known || v == nil {
			v = zeroOf(f.Type)
		}
		if l, ok := v.([]string); ok {
			v = slices.Clone(l)
		}
		d[f.Name] = v
	}
	if it.Kind == KindWebhook {
		d["json"] = capJSON(it.Body, 0)
		if d["json"] == nil {
			d["json"] = map[string]any{}
		}
	}
	return d
}

func zeroOf(t Type) any {
	switch t {
	case TypeList:
		return []string{}
	case TypeNumber:
		return 0.0
	case TypeBool:
		return false
	}
	return ""
}

// capJSON bounds a JSON value for templates: at most maxTemplateJSON
// entries per object (the first by key order) and list, strings cut, at
// most maxBodyPathDepth levels. A loop over it is then as bounded as one
// over a mail's recipients.
func capJSON(v any, depth int) any {
	if depth > maxBodyPathDepth {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return nil
		}
		keys := sortedKeys(x)
		if len(keys) > maxTemplateJSON {
			keys = keys[:maxTemplateJSON]
		}
		out := make(map[string]any, len(keys))
		for _, k := range keys {
			out[k] = capJSON(x[k], depth+1)
		}
		return out
	case []any:
		n := min(len(x), maxTemplateJSON)
		out := make([]any, n)
		for i := range n {
			out[i] = capJSON(x[i], depth+1)
		}
		return out
	case string:
		return cut(x, MaxShortField)
	}
	return v
}

// SampleItem is the largest item of a kind: every field known and at its
// longest, lists full. Templates are rendered against it when saved, so
// that one that would run out of time or space on a real item fails then.
func SampleItem(kind string) Item {
	it := NewItem(kind)
	it.Received = time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, f := range kindFields[kind] {
		switch f.Type {
		case TypeString:
			it.Fields[f.Name] = strings.Repeat("x", f.MaxBytes)
		case TypeList:
			l := make([]string, MaxListItems)
			for i := range l {
				l[i] = strings.Repeat("x", f.MaxBytes)
			}
			it.Fields[f.Name] = l
		case TypeNumber:
			it.Fields[f.Name] = 1e12
		case TypeBool:
			it.Fields[f.Name] = true
		}
	}
	if kind == KindWebhook {
		// A body as wide as templates may see, with keys no template
		// names (a field a body may lack is read with get).
		it.BodyKnown = true
		it.Body = map[string]any{}
		for i := range maxTemplateJSON {
			l := make([]any, maxTemplateJSON)
			for j := range l {
				l[j] = "sample"
			}
			it.Body["sample_"+strconv.Itoa(i)] = l
		}
	}
	return it
}

// SampleData is SampleItem's template data.
func SampleData(kind string) map[string]any { return TemplateData(SampleItem(kind)) }
