package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
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

// FuzzRuleCost: the cost model bounds what evaluation charges. A condition
// of any field, operator and operand either compiles within a rule's cost
// or is refused with an error naming the rule and where; one that compiles
// is charged, on the heaviest item of its kind a text can make (every text
// at its limit, every list full, a webhook body's field a full list), no
// more than its worst cost, and a scout's rules made of it stop within the
// item's budget.
func FuzzRuleCost(f *testing.F) {
	for _, s := range []struct {
		kind, field, op, operand string
		cs                       bool
		text                     string
	}{
		{KindFolder, "text", "regex", `"\\pL{1000}"`, false, "Ab"},
		{KindFolder, "text", "regex", `"[\\x{0}-\\x{10FFFF}]{500}x"`, true, "\x00"},
		{KindFolder, "text", "regex", `"[a-z]{40}x"`, false, "a"},
		{KindFolder, "text", "regex", `"\\d{4}-\\d{2}-\\d{2}"`, false, "2026-11-27 "},
		{KindFolder, "text", "contains_word", `"payment due"`, false, "Payment: due Friday "},
		{KindFolder, "name", "regex", `"^(tmp|~)"`, false, "tmp"},
		{KindGmail, "subject", "regex", `"\\pL{1000}"`, false, "é"},
		{KindGmail, "to", "regex", `"(\\pL|\\pN){50}!"`, false, "Ⱥ"},
		{KindGmail, "labels", "in", `["INBOX","SPAM"]`, false, "inbox"},
		{KindWebhook, "body", "contains", `"failed"`, false, "fail"},
		{KindWebhook, "body.items", "regex", `"(?s).{100}x"`, false, "y"},
		{KindWebhook, "body.status", "equals", `"failed"`, true, "failed"},
	} {
		f.Add(s.kind, s.field, s.op, s.operand, s.cs, s.text)
	}
	f.Fuzz(func(t *testing.T, kind, field, op, operand string, cs bool, text string) {
		key, _ := json.Marshal(field)
		opKey, _ := json.Marshal(op)
		doc := fmt.Sprintf(`{"id":"f","when":{%s:{%s:%s,"case_sensitive":%t}},"then":{"verdict":"show"}}`, key, opKey, operand, cs)
		c, err := Compile(kind, []byte(doc), Options{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "rule") {
				t.Fatalf("error does not name the rule: %v", err)
			}
			if strings.Contains(e.Msg, "could cost up to") && !strings.HasPrefix(e.Path, "/when") {
				t.Fatalf("a cost refused at %q, not at its condition", e.Path)
			}
			return
		}
		worst, _ := c.filter.worstCost()
		if worst > MaxRuleCost {
			t.Fatalf("a filter of worst cost %d compiled (at most %d)", worst, MaxRuleCost)
		}
		it := heaviest(kind, field, text)
		budget := ItemBudget
		r := c.Evaluate(&it, &budget)
		spent := ItemBudget - budget
		if spent > worst || spent < 1 || r.Spent {
			t.Fatalf("charged %d steps on the heaviest item (worst cost %d), spent %v", spent, worst, r.Spent)
		}
		// Two rules made of it, given room for one and a half: the second
		// runs out (unless the first matches). A clock that never moves:
		// only the steps can stop them, and each rule charges the same.
		steps := spent + spent/2
		set := Set{c, c}
		still := func() (func() time.Duration, func()) { return func() time.Duration { return 0 }, func() {} }
		m := set.MatchWithin(&it, "", Budget{Steps: steps, Clock: still})
		switch {
		case m.Steps > steps || m.OutOfTime:
			t.Fatalf("the rules spent %d steps (budget %d), out of time %v", m.Steps, steps, m.OutOfTime)
		case r.Truth == True:
			if m.Rule != c || m.Steps != spent {
				t.Fatalf("the first rule matches alone, yet %+v", m)
			}
		case m.TooSlow != nil:
			if m.Rule != nil || m.Steps != spent || len(m.Notes) != 1 {
				t.Fatalf("too slow after %d steps of rules costing %d each: %+v", m.Steps, spent, m)
			}
		default:
			t.Fatalf("two rules of %d steps each ran within %d: %+v", spent, steps, m)
		}
	})
}

// heaviest is the heaviest item of kind that text makes: every text field
// at its limit, every list full, a webhook body whose field (body.x) is a
// list of texts filling the body.
func heaviest(kind, field, text string) Item {
	if text == "" {
		text = "a"
	}
	fill := func(n int) string { return cut(strings.Repeat(text, n/len(text)+1), n) }
	it := NewItem(kind)
	for _, fl := range Fields(kind) {
		switch fl.Type {
		case TypeString:
			it.SetString(fl.Name, fill(fl.MaxBytes))
		case TypeList:
			l := make([]string, MaxListItems)
			for i := range l {
				l[i] = fill(fl.MaxBytes)
			}
			it.SetList(fl.Name, l)
		case TypeNumber:
			it.SetNumber(fl.Name, float64(len(text)))
		case TypeBool:
			it.SetBool(fl.Name, true)
		}
	}
	if kind == KindWebhook {
		var v any = []string{}
		var list []string
		for range MaxListItems {
			list = append(list, fill(MaxTextField/MaxListItems-8))
		}
		v = list
		if path, ok := strings.CutPrefix(field, BodyFieldPrefix); ok {
			parts := strings.Split(path, ".")
			for i := len(parts) - 1; i >= 0; i-- {
				v = map[string]any{parts[i]: v}
			}
		} else {
			v = map[string]any{"x": v}
		}
		body, _ := json.Marshal(v)
		it.SetBody(string(body))
	}
	return it
}
