package rules

import (
	"strings"
	"testing"
)

// FuzzRules: any document either compiles or is refused with an error
// naming the rule; a compiled rule evaluates on any item of its kind
// within its budget, and applies without panicking.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","when":{"subject":{"contains":"invoice"}},"then":{"verdict":"show"}}`,
		`{"id":"b","when":{"$or":[{"from":{"in":["a@b.c"]}},{"$not":{"labels":{"regex":"^cat"}}}]},"then":{"verdict":"spam","title":"{{.subject | upper}}"}}`,
		`{"id":"c","when":{"size":{"gt":10,"lte":1e6},"ext":{"in":["pdf"]}},"then":{"verdict":"screen","due":"+3d","kind":"task"}}`,
		`{"id":"d","when":{"body.a.b":{"exists":true}},"then":{"verdict":"skip","actions":[{"action":"webhook.post","params":{"x":"{{.title}}"}}]}}`,
		`{"id":"e","when":{"$and":[{"subject":{"contains_word":"a b"}}]},"then":{"verdict":"show"}}`,
	} {
		f.Add("gmail", s, "subject text", "from@example.com", 5.0)
	}
	f.Fuzz(func(t *testing.T, kind, doc, text, from string, size float64) {
		c, err := Compile(kind, []byte(doc), Options{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "rule") {
				t.Fatalf("error does not name the rule: %v", err)
			}
			return
		}
		if len(doc) > MaxRuleBytes {
			t.Fatalf("a %d-byte document compiled", len(doc))
		}
		it := NewItem(kind)
		for _, fl := range Fields(kind) {
			switch fl.Type {
			case TypeString:
				it.SetString(fl.Name, text)
			case TypeList:
				it.SetList(fl.Name, []string{from, text})
			case TypeNumber:
				it.SetNumber(fl.Name, size)
			case TypeBool:
				it.SetBool(fl.Name, size > 0)
			}
		}
		if kind == KindWebhook {
			it.SetBody(text)
		}
		budget := ItemBudget
		r := c.Evaluate(&it, &budget)
		if budget < -MaxRuleCost || r.Truth > Unknown {
			t.Fatalf("evaluation: %+v, budget %d", r, budget)
		}
		c.Apply(it, nil)
		Set{c}.Match(&it, "")
	})
}

// FuzzTemplate: any template is accepted or refused; an accepted one
// renders any item of its kind within the caps, or says why not.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		`Pay {{.from}}: {{.subject | truncate 40}}`,
		`{{range .to}}{{.}},{{end}}`,
		`{{if .has_attachment}}x{{else}}{{.labels | join ", "}}{{end}}`,
		`{{date "date" .received}} {{default "none" .list_id}}`,
		`{{replace "a" "b" .subject | lower | trim}}`,
	} {
		f.Add("gmail", s, "an item's text")
	}
	f.Fuzz(func(t *testing.T, kind, src, text string) {
		if _, ok := kindFields[kind]; !ok {
			kind = KindGmail
		}
		tp, err := ParseTemplate(kind, src)
		if err != nil {
			return
		}
		if len(src) > MaxTemplateBytes {
			t.Fatalf("a %d-byte template parsed", len(src))
		}
		it := NewItem(kind)
		for _, fl := range Fields(kind) {
			switch fl.Type {
			case TypeString:
				it.SetString(fl.Name, text)
			case TypeList:
				it.SetList(fl.Name, []string{text, text})
			}
		}
		if kind == KindWebhook {
			it.SetBody(text)
		}
		out, err := tp.Render(TemplateData(it))
		if err == nil && len(out) > MaxOutputBytes {
			t.Fatalf("%d bytes out", len(out))
		}
	})
}
