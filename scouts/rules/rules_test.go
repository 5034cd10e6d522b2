package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// rule compiles a rule document for kind, failing the test on error.
func rule(t *testing.T, kind, when string) *Compiled {
	t.Helper()
	c, err := Compile(kind, []byte(`{"id":"r","when":`+when+`,"then":{"verdict":"show"}}`), Options{})
	if err != nil {
		t.Fatalf("compile %s: %v", when, err)
	}
	return c
}

func mail() Item {
	it := NewItem(KindGmail)
	it.SetString("from", "bob@mail.example.com")
	it.SetString("domain", "mail.example.com")
	it.SetList("to", []string{"ann@example.org", "team@example.org"})
	it.SetString("subject", "Invoice 42: payment due Friday")
	it.SetString("list_id", "")
	it.SetList("labels", []string{"INBOX", "CATEGORY_UPDATES"})
	it.SetBool("has_attachment", true)
	return it
}

func file() Item {
	it := NewItem(KindFolder)
	it.SetString("path", "invoices/2024/ACME.pdf")
	it.SetString("name", "ACME.pdf")
	it.SetString("ext", "pdf")
	it.SetNumber("size", 2048)
	it.SetString("text", "ACME Corp invoice, total 120 EUR")
	return it
}

func hook() Item {
	it := NewItem(KindWebhook)
	it.SetString("title", "Build failed")
	it.SetBody(`{"status":"failed","attempt":3,"ok":false,"repo":{"name":"scouts"},"tags":["ci","prod"],"none":null}`)
	return it
}

// TestOperators: every operator, on every field type, with the default
// case-insensitive comparison and the case-sensitive one.
func TestOperators(t *testing.T) {
	cases := []struct {
		kind string
		item Item
		when string
		want Truth
	}{
		{KindGmail, mail(), `{"from":{"equals":"BOB@mail.example.com"}}`, True},
		{KindGmail, mail(), `{"from":{"equals":"BOB@mail.example.com","case_sensitive":true}}`, False},
		{KindGmail, mail(), `{"from":{"not_equals":"bob@mail.example.com"}}`, False},
		{KindGmail, mail(), `{"from":{"not_equals":"eve@example.com"}}`, True},
		{KindGmail, mail(), `{"subject":{"starts_with":"invoice"}}`, True},
		{KindGmail, mail(), `{"subject":{"starts_with":"payment"}}`, False},
		{KindGmail, mail(), `{"subject":{"ends_with":"FRIDAY"}}`, True},
		{KindGmail, mail(), `{"subject":{"ends_with":"FRIDAY","case_sensitive":true}}`, False},
		{KindGmail, mail(), `{"subject":{"contains":"PAYMENT DUE"}}`, True},
		{KindGmail, mail(), `{"subject":{"contains":"refund"}}`, False},
		{KindGmail, mail(), `{"subject":{"contains_word":"invoice"}}`, True},
		{KindGmail, mail(), `{"subject":{"contains_word":"voice"}}`, False},
		{KindGmail, mail(), `{"subject":{"contains_word":"payment due"}}`, True},
		{KindGmail, mail(), `{"subject":{"contains_word":"due payment"}}`, False},
		{KindGmail, mail(), `{"subject":{"contains_word":"Invoice","case_sensitive":true}}`, True},
		{KindGmail, mail(), `{"subject":{"contains_word":"invoice","case_sensitive":true}}`, False},
		{KindGmail, mail(), `{"subject":{"regex":"^invoice [0-9]+:"}}`, True},
		{KindGmail, mail(), `{"subject":{"regex":"^invoice [0-9]+:","case_sensitive":true}}`, False},
		{KindGmail, mail(), `{"from":{"in":["eve@example.com","Bob@Mail.Example.com"]}}`, True},
		{KindGmail, mail(), `{"from":{"not_in":["eve@example.com","Bob@Mail.Example.com"]}}`, False},
		{KindGmail, mail(), `{"domain":{"ends_with":".example.com"}}`, True},
		{KindGmail, mail(), `{"list_id":{"exists":false}}`, True},
		{KindGmail, mail(), `{"list_id":{"exists":true}}`, False},
		{KindGmail, mail(), `{"from":{"exists":true}}`, True},
		// Lists: a string operator holds when it holds for any entry.
		{KindGmail, mail(), `{"to":{"equals":"team@example.org"}}`, True},
		{KindGmail, mail(), `{"to":{"not_equals":"team@example.org"}}`, False},
		{KindGmail, mail(), `{"to":{"ends_with":"@example.net"}}`, False},
		{KindGmail, mail(), `{"labels":{"in":["category_updates","category_promotions"]}}`, True},
		{KindGmail, mail(), `{"labels":{"not_in":["SPAM","TRASH"]}}`, True},
		{KindGmail, mail(), `{"labels":{"regex":"^category_"}}`, True},
		{KindGmail, mail(), `{"has_attachment":{"equals":true}}`, True},
		{KindGmail, mail(), `{"has_attachment":{"not_equals":true}}`, False},
		{KindGmail, mail(), `{"has_attachment":{"in":[false]}}`, False},
		// Numbers.
		{KindFolder, file(), `{"size":{"gt":2047}}`, True},
		{KindFolder, file(), `{"size":{"gt":2048}}`, False},
		{KindFolder, file(), `{"size":{"gte":2048}}`, True},
		{KindFolder, file(), `{"size":{"lt":2048}}`, False},
		{KindFolder, file(), `{"size":{"lte":2048}}`, True},
		{KindFolder, file(), `{"size":{"equals":2048}}`, True},
		{KindFolder, file(), `{"size":{"gt":1000,"lt":4096}}`, True},
		{KindFolder, file(), `{"size":{"gt":1000,"lt":2000}}`, False},
		{KindFolder, file(), `{"size":{"in":[1,2048]}}`, True},
		{KindFolder, file(), `{"size":{"not_in":[1,2048]}}`, False},
		{KindFolder, file(), `{"ext":{"in":["PDF","docx"]}}`, True},
		{KindFolder, file(), `{"name":{"regex":"\\.pdf$"}}`, True},
		{KindFolder, file(), `{"text":{"contains":"total 120"}}`, True},
		{KindFolder, file(), `{"path":{"starts_with":"invoices/"}}`, True},
		// A webhook's JSON body.
		{KindWebhook, hook(), `{"body.status":{"equals":"FAILED"}}`, True},
		{KindWebhook, hook(), `{"body.attempt":{"gte":3}}`, True},
		{KindWebhook, hook(), `{"body.attempt":{"equals":3}}`, True},
		{KindWebhook, hook(), `{"body.attempt":{"equals":"3"}}`, False},
		{KindWebhook, hook(), `{"body.ok":{"equals":false}}`, True},
		{KindWebhook, hook(), `{"body.repo.name":{"equals":"scouts"}}`, True},
		{KindWebhook, hook(), `{"body.tags":{"equals":"prod"}}`, True},
		{KindWebhook, hook(), `{"body.missing":{"exists":false}}`, True},
		{KindWebhook, hook(), `{"body.missing":{"equals":"x"}}`, False},
		{KindWebhook, hook(), `{"body.missing":{"not_equals":"x"}}`, True},
		{KindWebhook, hook(), `{"body.none":{"exists":true}}`, False},
		{KindWebhook, hook(), `{"body.status":{"gt":1}}`, False},
		{KindWebhook, hook(), `{"body":{"contains":"\"attempt\":3"}}`, True},
		{KindWebhook, hook(), `{"title":{"equals":"build failed"}}`, True},
		// Combinators; several keys in one object must all hold.
		{KindGmail, mail(), `{"$and":[{"from":{"ends_with":"example.com"}},{"subject":{"contains":"invoice"}}]}`, True},
		{KindGmail, mail(), `{"$and":[{"from":{"ends_with":"example.com"}},{"subject":{"contains":"refund"}}]}`, False},
		{KindGmail, mail(), `{"$or":[{"subject":{"contains":"refund"}},{"has_attachment":{"equals":true}}]}`, True},
		{KindGmail, mail(), `{"$or":[{"subject":{"contains":"refund"}},{"has_attachment":{"equals":false}}]}`, False},
		{KindGmail, mail(), `{"$not":{"subject":{"contains":"refund"}}}`, True},
		{KindGmail, mail(), `{"$not":{"subject":{"contains":"invoice"}}}`, False},
		{KindGmail, mail(), `{"from":{"ends_with":"example.com"},"subject":{"contains":"refund"}}`, False},
		{KindGmail, mail(), `{"from":{"ends_with":"example.com"},"$not":{"subject":{"contains":"refund"}}}`, True},
	}
	for _, c := range cases {
		it := c.item
		budget := ItemBudget
		got := rule(t, c.kind, c.when).Evaluate(&it, &budget)
		if got.Truth != c.want {
			t.Errorf("%s on %s: %s, want %s", c.when, c.kind, got.Truth, c.want)
		}
		if got.Truth == True && got.Why == "" {
			t.Errorf("%s: true without a why", c.when)
		}
	}
}

// TestUnknownFields: a rule never fires on a field the item does not
// carry; it fires when what is known decides.
func TestUnknownFields(t *testing.T) {
	it := NewItem(KindGmail)
	it.SetString("from", "bob@example.com")
	it.SetString("subject", "Weekly digest")
	cases := []struct {
		when string
		want Truth
	}{
		{`{"list_id":{"equals":"news.example.com"}}`, Unknown},
		{`{"list_id":{"not_equals":"news.example.com"}}`, Unknown},
		{`{"list_id":{"exists":false}}`, Unknown},
		{`{"$not":{"labels":{"in":["SPAM"]}}}`, Unknown},
		{`{"$and":[{"from":{"equals":"bob@example.com"}},{"list_id":{"exists":true}}]}`, Unknown},
		{`{"$and":[{"from":{"equals":"eve@example.com"}},{"list_id":{"exists":true}}]}`, False},
		{`{"$or":[{"from":{"equals":"bob@example.com"}},{"list_id":{"exists":true}}]}`, True},
		{`{"$or":[{"from":{"equals":"eve@example.com"}},{"list_id":{"exists":true}}]}`, Unknown},
	}
	for _, c := range cases {
		budget := ItemBudget
		r := rule(t, KindGmail, c.when).Evaluate(&it, &budget)
		if r.Truth != c.want {
			t.Errorf("%s: %s, want %s", c.when, r.Truth, c.want)
		}
		if r.Truth == Unknown && (len(r.Unknown) == 0 || r.Unknown[0] != "list_id" && r.Unknown[0] != "labels") {
			t.Errorf("%s: unknown fields %v", c.when, r.Unknown)
		}
	}
	set := Set{rule(t, KindGmail, `{"list_id":{"exists":false}}`), rule(t, KindGmail, `{"subject":{"contains":"digest"}}`)}
	set[1].Rule.ID = "second"
	if c, r, _ := set.Match(&it, ""); c == nil || c.Rule.ID != "second" || !strings.Contains(r.Why, "digest") {
		t.Fatalf("the rule on an unknown field must be passed over: %v %+v", c, r)
	}
	// The source's triage matched the first rule on the fields it saw.
	set[0].Rule.ID = "first"
	if c, _, _ := set.Match(&it, "first"); c == nil || c.Rule.ID != "first" {
		t.Fatalf("the rule the source matched must decide: %v", c)
	}
	off := false
	set[0].Rule.Enabled = &off
	if c, _, _ := set.Match(&it, "first"); c == nil || c.Rule.ID != "second" {
		t.Fatalf("a disabled rule must not decide, even when the source matched it: %v", c)
	}
}

// compileErr compiles a document and returns its error.
func compileErr(t *testing.T, kind, doc string) *Error {
	t.Helper()
	_, err := Compile(kind, []byte(doc), Options{})
	if err == nil {
		t.Fatalf("%.200s: compiled, want an error", doc)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%T is not a *rules.Error: %v", err, err)
	}
	return e
}

// TestErrorsNameRuleAndPath: what the schema and the semantic checks
// refuse, each naming the rule and where in it.
func TestErrorsNameRuleAndPath(t *testing.T) {
	cases := []struct {
		kind, doc, path, msg string
	}{
		{KindGmail, `{"id":"x","when":{"subject":{"contain":"a"}},"then":{"verdict":"show"}}`, "/when/subject", "contain"},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"maybe"}}`, "/then/verdict", "show"},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}}}`, "", "then"},
		{KindGmail, `{"id":"x y","when":{"subject":{"contains":"a"}},"then":{"verdict":"show"}}`, "/id", ""},
		{KindGmail, `{"id":"x","when":{"size":{"gt":1}},"then":{"verdict":"show"}}`, "/when/size", "no field"},
		{KindFolder, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show"}}`, "/when/subject", "no field"},
		{KindGmail, `{"id":"x","when":{"$and":[{"subject":{"gt":3}}]},"then":{"verdict":"show"}}`, "/when/$and/0/subject/gt", "does not apply"},
		{KindFolder, `{"id":"x","when":{"size":{"contains":"3"}},"then":{"verdict":"show"}}`, "/when/size/contains", "does not apply"},
		{KindFolder, `{"id":"x","when":{"size":{"equals":"3"}},"then":{"verdict":"show"}}`, "/when/size/equals", "number"},
		{KindGmail, `{"id":"x","when":{"subject":{"equals":3}},"then":{"verdict":"show"}}`, "/when/subject/equals", "string"},
		{KindGmail, `{"id":"x","when":{"has_attachment":{"equals":"yes"}},"then":{"verdict":"show"}}`, "/when/has_attachment/equals", "bool"},
		{KindGmail, `{"id":"x","when":{"subject":{"in":["a",3]}},"then":{"verdict":"show"}}`, "/when/subject/in/1", "string"},
		{KindGmail, `{"id":"x","when":{"subject":{"regex":"(a"}},"then":{"verdict":"show"}}`, "/when/subject/regex", "does not compile"},
		{KindGmail, `{"id":"x","when":{"subject":{"regex":"(a)\\1"}},"then":{"verdict":"show"}}`, "/when/subject/regex", "does not compile"},
		{KindGmail, `{"id":"x","when":{"subject":{"regex":"(?=a)"}},"then":{"verdict":"show"}}`, "/when/subject/regex", "does not compile"},
		{KindGmail, `{"id":"x","when":{"subject":{"case_sensitive":true}},"then":{"verdict":"show"}}`, "/when/subject", "no operator"},
		{KindGmail, `{"id":"x","when":{},"then":{"verdict":"show"}}`, "/when", ""},
		{KindGmail, `{"id":"x","when":{"$nor":[]},"then":{"verdict":"show"}}`, "/when", ""},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","kind":"memo"}}`, "/then/kind", ""},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","due":"tomorrow"}}`, "/then/due", ""},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","due":"+99999d"}}`, "/then/due", "days away"},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","actions":[{"action":"Archive"}]}}`, "/then/actions/0/action", ""},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","actions":[{"action":"gmail.label","params":[1]}]}}`, "/then/actions/0/params", ""},
		{KindGmail, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","actions":[{"action":"gmail.label","params":{"label":"{{.nope}}"}}]}}`, "/then/actions/0/params/label", "nope"},
		{KindWebhook, `{"id":"x","when":{"body.":{"exists":true}},"then":{"verdict":"show"}}`, "/when", ""},
	}
	for _, c := range cases {
		e := compileErr(t, c.kind, c.doc)
		if e.Rule != "x" && !strings.Contains(c.doc, `"x y"`) {
			t.Errorf("%s: the error does not name the rule: %v", c.doc, e)
		}
		if c.path != "" && !strings.HasPrefix(e.Path, c.path) && !strings.Contains(e.Msg, c.path) {
			t.Errorf("%s: error at %q (%v), want %s", c.doc, e.Path, e, c.path)
		}
		if !strings.Contains(e.Error(), c.msg) {
			t.Errorf("%s: %v, want it to mention %q", c.doc, e, c.msg)
		}
	}
	if e := compileErr(t, "calendar", `{"id":"x","when":{"a":{"exists":true}},"then":{"verdict":"show"}}`); !strings.Contains(e.Msg, "no rules") {
		t.Fatalf("unknown kind: %v", e)
	}
}

// TestActionsHook: actions are named and shaped here; the catalogue's
// hook has the last word.
func TestActionsHook(t *testing.T) {
	doc := `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","actions":[{"action":"gmail.label","params":{"label":"Scouts/{{.domain}}","keep":true}}]}}`
	var got []string
	o := Options{ValidateAction: func(name string, params json.RawMessage) error {
		got = append(got, name+" "+string(params))
		if name == "gmail.label" {
			return nil
		}
		return fmt.Errorf("unknown action")
	}}
	c, err := Compile(KindGmail, []byte(doc), o)
	if err != nil || len(got) != 1 || !strings.Contains(got[0], "gmail.label") {
		t.Fatalf("compile: %v, hook saw %q", err, got)
	}
	it := mail()
	eff := c.Apply(it, time.UTC)
	if len(eff.Actions) != 1 || string(eff.Actions[0].Params) != `{"keep":true,"label":"Scouts/mail.example.com"}` {
		t.Fatalf("rendered actions: %+v", eff.Actions)
	}
	_, err = Compile(KindGmail, []byte(strings.Replace(doc, "gmail.label", "gmail.frobnicate", 1)), o)
	var e *Error
	if !errors.As(err, &e) || e.Path != "/then/actions/0" || !strings.Contains(e.Msg, "unknown action") {
		t.Fatalf("the hook's refusal: %v", err)
	}
}

// TestLimits: what could blow up is refused when the rule is saved, with
// a clear error; what gets through evaluates within a budget.
func TestLimits(t *testing.T) {
	deep := `{"subject":{"contains":"a"}}`
	for range MaxDepth {
		deep = `{"$not":` + deep + `}`
	}
	if e := compileErr(t, KindGmail, `{"id":"x","when":`+deep+`,"then":{"verdict":"show"}}`); !strings.Contains(e.Msg, "nest deeper") {
		t.Errorf("deep filter: %v", e)
	}
	deeper := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if e := compileErr(t, KindGmail, `{"id":"x","when":{"a":`+deeper+`},"then":{"verdict":"show"}}`); !strings.Contains(e.Msg, "levels deep") {
		t.Errorf("deep JSON: %v", e)
	}
	huge := `{"id":"x","name":"` + strings.Repeat("n", MaxRuleBytes) + `","when":{"subject":{"contains":"a"}},"then":{"verdict":"show"}}`
	if e := compileErr(t, KindGmail, huge); !strings.Contains(e.Msg, "bytes, more than") {
		t.Errorf("huge document: %v", e)
	}
	var many []string
	for i := range MaxNodes {
		many = append(many, fmt.Sprintf(`{"subject":{"equals":"w%d"}}`, i))
	}
	if e := compileErr(t, KindGmail, `{"id":"x","when":{"$or":[{"$or":[`+strings.Join(many, ",")+`]}]},"then":{"verdict":"show"}}`); !strings.Contains(e.Msg, "more than 500 conditions") {
		t.Errorf("too many nodes: %v", e)
	}
	long := strings.Repeat("a", MaxRegexLen+1)
	if e := compileErr(t, KindGmail, `{"id":"x","when":{"subject":{"regex":"`+long+`"}},"then":{"verdict":"show"}}`); e.Path != "/when/subject/regex" {
		t.Errorf("long regex: %v", e)
	}
	if e := compileErr(t, KindGmail, `{"id":"x","when":{"subject":{"regex":"((a|b|c|d){50}){20}"}},"then":{"verdict":"show"}}`); !strings.Contains(e.Msg, "too complex") && !strings.Contains(e.Msg, "too large") {
		t.Errorf("blown-up regex: %v", e)
	}
	if e := compileErr(t, KindGmail, `{"id":"x","when":{"subject":{"regex":"a{1001}"}},"then":{"verdict":"show"}}`); !strings.Contains(e.Msg, "does not compile") {
		t.Errorf("huge repeat: %v", e)
	}
	// Regex conditions on a 64 KiB body, one more at a time: each fits a
	// rule's cost, not all of them.
	var regexes []string
	for i := 0; ; i++ {
		regexes = append(regexes, fmt.Sprintf(`{"body":{"regex":"[a-z]{10}x%d"}}`, i))
		_, err := Compile(KindWebhook, []byte(`{"id":"x","when":{"$and":[`+strings.Join(regexes, ",")+`]},"then":{"verdict":"show"}}`), Options{})
		if err == nil {
			continue
		}
		var e *Error
		if i == 0 || !errors.As(err, &e) || e.Path != "/when" || !strings.Contains(e.Msg, "could cost up to") || !strings.Contains(e.Msg, "costliest condition, at /when/$and/") {
			t.Errorf("costly filter of %d conditions: %v", i+1, err)
		}
		break
	}
	if e := compileErr(t, KindGmail, `{"id":"x","when":{"subject":{"in":[`+strings.Repeat(`"a",`, MaxInValues)+`"a"]}},"then":{"verdict":"show"}}`); e.Path != "/when/subject/in" {
		t.Errorf("long in: %v", e)
	}
	if e := compileErr(t, KindGmail, `{"id":"x","when":{"subject":{"contains":"`+strings.Repeat("a", MaxValueLen+1)+`"}},"then":{"verdict":"show"}}`); e.Path != "/when/subject/contains" {
		t.Errorf("long value: %v", e)
	}
}

// TestCatastrophicRegex: patterns that backtracking engines take
// exponential time on are linear in RE2; on the longest text a field
// holds they finish, and their cost is counted.
func TestCatastrophicRegex(t *testing.T) {
	it := NewItem(KindWebhook)
	it.SetBody(strings.Repeat("a", MaxTextField-1) + "!")
	for _, re := range []string{`(a+)+$`, `^(a|a)*$`, `(a*)*b`, `^(a|aa)+$`} {
		c := rule(t, KindWebhook, `{"body":{"regex":"`+re+`"}}`)
		budget := ItemBudget
		if r := c.Evaluate(&it, &budget); r.Truth != False {
			t.Errorf("%s: %s", re, r.Truth)
		}
		if spent := ItemBudget - budget; spent < MaxTextField {
			t.Errorf("%s cost %d steps on a %d-byte text", re, spent, MaxTextField)
		}
	}
}

// TestItemBudget: a scout's rules together spend at most ItemBudget on an
// item; the rules after that are not tried, and the note says so.
func TestItemBudget(t *testing.T) {
	it := NewItem(KindWebhook)
	it.SetBody(strings.Repeat("b", MaxTextField))
	var set Set
	for i := range 20 {
		var conds []string
		for j := range 7 {
			conds = append(conds, fmt.Sprintf(`{"body":{"regex":"a%d"}}`, j))
		}
		c := rule(t, KindWebhook, `{"$or":[`+strings.Join(conds, ",")+`]}`)
		c.Rule.ID = fmt.Sprintf("r%d", i)
		set = append(set, c)
	}
	c, _, notes := set.Match(&it, "")
	if c != nil || len(notes) != 1 || !strings.Contains(notes[0], "were not tried") || !strings.Contains(notes[0], "evaluation budget") {
		t.Fatalf("match %v, notes %q", c, notes)
	}
}

// TestDue: relative and absolute due dates.
func TestDue(t *testing.T) {
	ref := time.Date(2026, 5, 1, 15, 30, 0, 0, time.UTC)
	cases := map[string]time.Time{
		"+3d":                  time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC),
		"+2w":                  time.Date(2026, 5, 15, 0, 0, 0, 0, time.UTC),
		"+0d":                  time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
		"+12h":                 time.Date(2026, 5, 2, 3, 30, 0, 0, time.UTC),
		"2026-06-01":           time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
		"2026-06-01T09:00:00Z": time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC),
	}
	for s, want := range cases {
		d, err := ParseDue(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := d.At(ref, time.UTC); !got.Equal(want) {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
	for _, bad := range []string{"", "tomorrow", "+3", "+3y", "+-3d", "+99999d", "2026-13-01", "+1d2h"} {
		if _, err := ParseDue(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
