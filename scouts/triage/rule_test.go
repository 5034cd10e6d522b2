package triage

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
)

func TestRuleValidation(t *testing.T) {
	ok := Rule{ID: "r1", Action: Allow, Senders: []string{"boss@example.com"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid rule refused: %v", err)
	}
	long := strings.Repeat("a", MaxRuleEntryLen+1)
	many := make([]string, MaxRuleEntries+1)
	for i := range many {
		many[i] = "w"
	}
	cases := []struct {
		name string
		rule Rule
		want string // part of the message
	}{
		{"no id", Rule{Action: Allow, Senders: []string{"a@b.c"}}, "rule id is required"},
		{"bad id", Rule{ID: "r 1", Action: Allow, Senders: []string{"a@b.c"}}, `rule id "r 1" must be`},
		{"no action", Rule{ID: "r1", Senders: []string{"a@b.c"}}, "rule r1: action is required"},
		{"bad action", Rule{ID: "r1", Action: "block", Senders: []string{"a@b.c"}}, `unknown action "block"`},
		{"empty", Rule{ID: "r1", Action: Deny}, "rule r1 matches nothing"},
		{"sender with name", Rule{ID: "r1", Action: Deny, Senders: []string{"Bob <bob@x.org>"}}, `senders[0] "Bob <bob@x.org>" is not a bare mail address`},
		{"sender no at", Rule{ID: "r1", Action: Deny, Senders: []string{"bob"}}, "is not a bare mail address"},
		{"domain with at", Rule{ID: "r1", Action: Deny, Domains: []string{"bob@x.org"}}, "is an address; put it in senders"},
		{"domain one label", Rule{ID: "r1", Action: Deny, Domains: []string{"localhost"}}, "is not a domain"},
		{"domain bad char", Rule{ID: "r1", Action: Deny, Domains: []string{"exa_mple.com"}}, "is not a domain"},
		{"list id with space", Rule{ID: "r1", Action: Ignore, ListIDs: []string{"dev list.example.org"}}, "is not a list id"},
		{"word with space", Rule{ID: "r1", Action: Allow, SubjectWords: []string{"two words"}}, "has spaces; give one word per entry"},
		{"word punctuation", Rule{ID: "r1", Action: Allow, SubjectWords: []string{"!!!"}}, "is not a word"},
		{"empty word", Rule{ID: "r1", Action: Allow, SubjectWords: []string{" "}}, "is empty"},
		{"entry too long", Rule{ID: "r1", Action: Allow, SubjectWords: []string{long}}, "is longer than 254 bytes"},
		{"too many entries", Rule{ID: "r1", Action: Allow, SubjectWords: many}, "has 201 entries, more than 200"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.rule.Validate()
			if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate() = %v, want an invalid error containing %q", err, c.want)
			}
		})
	}
	dup := []Rule{ok, ok}
	if err := ValidateRules(dup); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "used twice") {
		t.Fatalf("duplicate ids: %v", err)
	}
	if _, err := New(Config{Rules: dup}); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("New accepted invalid rules: %v", err)
	}
}

func TestRuleJSON(t *testing.T) {
	in := `{"id":"news","action":"ignore","domains":["news.example.com"],"list_ids":["<weekly.example.com>"],"subject_words":["digest"]}`
	var r Rule
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	want := Rule{ID: "news", Action: Ignore, Domains: []string{"news.example.com"}, ListIDs: []string{"<weekly.example.com>"}, SubjectWords: []string{"digest"}}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got %+v", r)
	}
	out, _ := json.Marshal(Rule{ID: "a", Action: Deny, Senders: []string{"x@y.z"}})
	if string(out) != `{"id":"a","action":"deny","senders":["x@y.z"]}` {
		t.Fatalf("marshal: %s", out)
	}
}

// triageWith runs a pipeline with only rules (no heuristics).
func triageWith(t *testing.T, rules []Rule, m Message) Decision {
	t.Helper()
	p, err := New(Config{Rules: rules, Heuristics: []Heuristic{}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Triage(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRuleMatchers(t *testing.T) {
	m := Message{
		From:    Address{Name: "Ann", Addr: "Ann@Mail.Example.COM"},
		Subject: "Re: [dev] Invoice #42 attached",
		ListID:  "Developers <DEV.lists.example.org>",
	}
	cases := []struct {
		name  string
		rule  Rule
		match bool
	}{
		{"sender, case-insensitive", Rule{Senders: []string{"ann@mail.example.com"}}, true},
		{"other sender", Rule{Senders: []string{"bob@mail.example.com"}}, false},
		{"domain exact", Rule{Domains: []string{"mail.example.com"}}, true},
		{"parent domain", Rule{Domains: []string{"Example.com."}}, true},
		{"lookalike domain", Rule{Domains: []string{"ample.com"}}, false},
		{"list id", Rule{ListIDs: []string{"dev.lists.example.org"}}, true},
		{"list id in brackets", Rule{ListIDs: []string{"<dev.lists.example.org>"}}, true},
		{"other list", Rule{ListIDs: []string{"ops.lists.example.org"}}, false},
		{"subject word", Rule{SubjectWords: []string{"INVOICE"}}, true},
		{"subject word in brackets", Rule{SubjectWords: []string{"dev"}}, true},
		{"subject digits", Rule{SubjectWords: []string{"42"}}, true},
		{"partial word", Rule{SubjectWords: []string{"invo"}}, false},
		{"all lists must match", Rule{Domains: []string{"example.com"}, SubjectWords: []string{"payroll"}}, false},
		{"all lists match", Rule{Domains: []string{"example.com"}, SubjectWords: []string{"payroll", "invoice"}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.rule.ID, c.rule.Action = "r1", Deny
			d := triageWith(t, []Rule{c.rule}, m)
			if got := d.Path == "rule:r1"; got != c.match {
				t.Fatalf("matched = %v (decision %+v), want %v", got, d, c.match)
			}
			if c.match && (d.Verdict != Spam || d.Confidence != 1 || !strings.HasPrefix(d.Reason, "Your rule r1 blocks ")) {
				t.Fatalf("decision %+v", d)
			}
		})
	}
	// A message without List-Id never matches a list rule.
	if d := triageWith(t, []Rule{{ID: "l", Action: Deny, ListIDs: []string{"x.example.org"}}}, Message{From: m.From}); d.Path != PathDefault {
		t.Fatalf("no List-Id: %+v", d)
	}
}

// The first matching rule decides, whatever the others say.
func TestRulePrecedence(t *testing.T) {
	rules := []Rule{
		{ID: "boss", Action: Allow, Senders: []string{"boss@corp.example"}},
		{ID: "corp-news", Action: Ignore, Domains: []string{"corp.example"}, SubjectWords: []string{"newsletter"}},
		{ID: "corp", Action: Deny, Domains: []string{"corp.example"}},
	}
	for _, c := range []struct {
		from, subject string
		path          string
		verdict       Verdict
	}{
		{"boss@corp.example", "Newsletter", "rule:boss", Relevant},
		{"hr@corp.example", "Monthly newsletter", "rule:corp-news", Skip},
		{"hr@corp.example", "Hello", "rule:corp", Spam},
		{"x@other.example", "Hello", "default", Relevant},
	} {
		d := triageWith(t, rules, Message{From: Address{Addr: c.from}, Subject: c.subject})
		if d.Path != c.path || d.Verdict != c.verdict {
			t.Errorf("%s %q: got %s %s, want %s %s", c.from, c.subject, d.Path, d.Verdict, c.path, c.verdict)
		}
	}
}
