package ruleset

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// oldRules has every shape the Gmail allow/deny lists could take: each
// list alone, lists together, several entries, each action, odd spellings
// the old validation accepted (case, a trailing dot, angle brackets).
var oldRules = []triage.Rule{
	{ID: "boss", Action: triage.Allow, Senders: []string{"Boss@Corp.example", "ceo@corp.example"}},
	{ID: "shops", Action: triage.Deny, Domains: []string{"shop.example", "Deals.Example."}},
	{ID: "lists", Action: triage.Ignore, ListIDs: []string{"<dev.lists.example.org>", "News <news.example.com>"}},
	{ID: "urgent", Action: triage.Allow, SubjectWords: []string{"URGENT"}},
	{ID: "promo-words", Action: triage.Deny, SubjectWords: []string{"sale", "discount", "offer"}},
	{ID: "mixed", Action: triage.Ignore, Senders: []string{"noreply@ci.example"}, Domains: []string{"ci.example"},
		ListIDs: []string{"builds.ci.example"}, SubjectWords: []string{"failed", "broken"}},
	{ID: "sub_dom", Action: triage.Allow, Domains: []string{"partner.example"}, SubjectWords: []string{"contract"}},
}

// mails cover matches and near misses of every rule above.
func mails() []triage.Message {
	addr := func(s string) triage.Address { return triage.Address{Addr: s} }
	var out []triage.Message
	for _, from := range []string{"boss@corp.example", "ceo@corp.example", "bob@corp.example", "x@shop.example", "x@eu.shop.example",
		"x@badshop.example", "x@deals.example", "noreply@ci.example", "x@ci.example", "x@build.ci.example", "a@partner.example",
		"a@sub.partner.example", "someone@else.example"} {
		for _, list := range []string{"", "dev.lists.example.org", "news.example.com", "builds.ci.example", "other.example.org"} {
			for _, subject := range []string{"Hello", "URGENT: call me", "urgently", "Big SALE today", "the build failed", "new contract draft", "contracts"} {
				out = append(out, triage.Message{ID: fmt.Sprint(len(out)), From: addr(from), Subject: subject, ListID: list,
					Labels: []string{"INBOX"}})
			}
		}
	}
	return out
}

// evidence is what the desktop's Gmail connector gives the engine of a
// mail.
func evidence(m triage.Message) scouts.ItemMetadata {
	it := scouts.Evidence(triage.LearnItem(m))
	return scouts.ItemMetadata{Title: m.Subject, Sender: m.From.Addr, Evidence: &it,
		Facts: &scouts.ItemFacts{Labels: m.Labels}}
}

// TestMigrationKeepsMeaning: each old rule becomes a rule of the grammar
// that decides every mail as the old one did (same rule, same verdict),
// nothing lost; and the grammar's rule compiles back to the same triage
// rule for the relay.
func TestMigrationKeepsMeaning(t *testing.T) {
	pipe, err := triage.New(triage.Config{Scout: "sc", Rules: oldRules})
	if err != nil {
		t.Fatal(err)
	}
	var set rules.Set
	var docs []rules.Rule
	for _, old := range oldRules {
		r, err := FromTriage(old)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(r)
		c, err := rules.Compile(rules.KindGmail, doc, rules.Options{})
		if err != nil {
			t.Fatalf("migrated %s does not compile: %v\n%s", old.ID, err, doc)
		}
		set, docs = append(set, c), append(docs, c.Rule)
	}
	verdicts := map[triage.Verdict]scouts.RuleVerdict{triage.Relevant: scouts.RuleShow, triage.Spam: scouts.RuleSpam, triage.Skip: scouts.RuleSkip}
	rs := &Rules{Kind: scouts.KindGmail, Set: set, Now: time.Now}
	matched := map[string]int{}
	for _, m := range mails() {
		d, err := pipe.Triage(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		out, err := rs.Match(context.Background(), evidence(m))
		if err != nil {
			t.Fatal(err)
		}
		oldID, byRule := strings.CutPrefix(d.Path, triage.PathRule)
		switch {
		case !byRule && out != nil:
			t.Errorf("%s / %s / %q: no old rule matched, the migrated %s does", m.From.Addr, m.ListID, m.Subject, out.RuleID)
		case byRule && (out == nil || out.RuleID != oldID || out.Verdict != verdicts[d.Verdict]):
			t.Errorf("%s / %s / %q: old rule %s (%s), migrated %+v", m.From.Addr, m.ListID, m.Subject, oldID, d.Verdict, out)
		case byRule:
			matched[oldID]++
		}
	}
	for _, old := range oldRules {
		if matched[old.ID] == 0 {
			t.Errorf("the mails never exercise rule %s", old.ID)
		}
	}
	back, desktop := ForTriage(docs)
	if len(desktop) != 0 || len(back) != len(oldRules) {
		t.Fatalf("compiled back: %d rules, desktop-only %v", len(back), desktop)
	}
	pipe2, err := triage.New(triage.Config{Scout: "sc", Rules: back})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mails() {
		d1, _ := pipe.Triage(context.Background(), m)
		d2, _ := pipe2.Triage(context.Background(), m)
		if d1.Path != d2.Path || d1.Verdict != d2.Verdict {
			t.Errorf("%s / %q: %s %s before the round trip, %s %s after", m.From.Addr, m.Subject, d1.Path, d1.Verdict, d2.Path, d2.Verdict)
		}
	}
}

// TestForTriageStopsAtFirstDesktopRule: the relay gets the rules it can
// express up to the first it cannot, so its first match is the desktop's.
func TestForTriageStopsAtFirstDesktopRule(t *testing.T) {
	doc := func(id, verdict, when string) rules.Rule {
		return rules.Rule{ID: id, When: json.RawMessage(when), Then: rules.Then{Verdict: rules.Verdict(verdict)}}
	}
	off := false
	rs := []rules.Rule{
		doc("a", "show", `{"from":{"equals":"boss@corp.example"}}`),
		doc("b", "screen", `{"list_id":{"in":["news.example.com"]},"subject":{"contains_word":"digest"}}`),
		{ID: "c-off", When: json.RawMessage(`{"subject":{"regex":"x"}}`), Then: rules.Then{Verdict: rules.Show}, Enabled: &off},
		doc("d", "spam", `{"$and":[{"$or":[{"domain":{"in":["shop.example"]}},{"domain":{"ends_with":".shop.example"}}]}]}`),
		doc("e", "show", `{"subject":{"regex":"^re:"}}`),
		doc("f", "spam", `{"from":{"equals":"x@y.example"}}`),
	}
	out, desktop := ForTriage(rs)
	var ids []string
	for _, r := range out {
		ids = append(ids, r.ID+":"+string(r.Action))
	}
	if strings.Join(ids, ",") != "a:allow,b:ignore,d:deny" || strings.Join(desktop, ",") != "e,f" {
		t.Fatalf("relay rules %v, desktop-only %v", ids, desktop)
	}
	if len(out[1].ListIDs) != 1 || out[1].SubjectWords[0] != "digest" || out[2].Domains[0] != "shop.example" {
		t.Fatalf("compiled: %+v", out)
	}
	for _, when := range []string{
		`{"domain":{"equals":"shop.example"}}`,                          // the relay's domain would match subdomains too
		`{"from":{"equals":"Boss@corp.example","case_sensitive":true}}`, // the relay ignores case
		`{"subject":{"contains_word":"two words"}}`,
		`{"subject":{"contains":"digest"}}`,
		`{"from":{"not_equals":"a@b.example"}}`,
		`{"$or":[{"from":{"equals":"a@b.example"}},{"subject":{"contains_word":"x"}}]}`,
		`{"from":{"equals":"a@b.example"},"$and":[{"from":{"equals":"c@d.example"}}]}`,
	} {
		if r, ok := ToTriage(doc("x", "show", when)); ok {
			t.Errorf("%s compiled to %+v; the relay cannot express it exactly", when, r)
		}
	}
}

// TestItemFields: what rules read of each kind's items, and what stays
// unknown.
func TestItemFields(t *testing.T) {
	yes := true
	ev := scouts.Evidence{Sender: "bob@mail.example.com", ListID: "dev.lists.example.org", Subject: "Hi"}
	it := ItemFromMetadata(scouts.KindGmail, scouts.ItemMetadata{Title: "Hi", Sender: `"Bob" <bob@mail.example.com>`, Evidence: &ev,
		Facts: &scouts.ItemFacts{To: []string{"Ann@Example.org"}, Labels: []string{"INBOX"}, HasAttachment: &yes}})
	want := map[string]any{"from": "bob@mail.example.com", "domain": "mail.example.com", "subject": "Hi", "list_id": "dev.lists.example.org",
		"to": []string{"ann@example.org"}, "labels": []string{"INBOX"}, "has_attachment": true}
	if got, _ := json.Marshal(it.Fields); string(got) != mustJSON(want) {
		t.Fatalf("gmail item: %s", got)
	}
	relay := ItemFromMetadata(scouts.KindGmail, scouts.ItemMetadata{Title: "Hi", Sender: `"Bob" <Bob@Example.com>`})
	if got, _ := json.Marshal(relay.Fields); string(got) != `{"domain":"example.com","from":"bob@example.com","subject":"Hi"}` {
		t.Fatalf("relay-triaged mail: %s", got)
	}
	unread := ItemFromMetadata(scouts.KindGmail, scouts.ItemMetadata{Title: "(not read: in Gmail's Promotions tab)"})
	if len(unread.Fields) != 0 {
		t.Fatalf("a mail skipped unread knows nothing: %v", unread.Fields)
	}
	f := ItemFromMetadata(scouts.KindFolder, scouts.ItemMetadata{Path: "inbox/Report.Final.PDF", Facts: &scouts.ItemFacts{Size: 10, Text: "hello"}})
	if got, _ := json.Marshal(f.Fields); string(got) != `{"ext":"pdf","name":"Report.Final.PDF","path":"inbox/Report.Final.PDF","size":10,"text":"hello"}` {
		t.Fatalf("file: %s", got)
	}
	w := ItemFromMetadata(scouts.KindWebhook, scouts.ItemMetadata{Title: "Deploy", Body: `{"env":"prod"}`})
	if got, _ := json.Marshal(w.Fields); string(got) != `{"body":"{\"env\":\"prod\"}","title":"Deploy"}` || w.Body["env"] != "prod" {
		t.Fatalf("webhook: %s %v", got, w.Body)
	}
	sealed := ItemFromMetadata(scouts.KindWebhook, scouts.ItemMetadata{Title: "Webhook item (its content could not be opened on this device)"})
	if len(sealed.Fields) != 0 || sealed.BodyKnown {
		t.Fatalf("a webhook whose content was not read knows nothing: %v", sealed.Fields)
	}
	// A stored card: what it keeps, the source's title when a rule
	// replaced it.
	sug := scouts.Suggestion{SourceType: scouts.KindGmail, Title: "Pay ACME", Sender: "billing@acme.example",
		Assessment: scouts.Assessment{SourceTitle: "Invoice 7"}}
	st := ItemFromSuggestion(sug)
	if got, _ := json.Marshal(st.Fields); string(got) != `{"domain":"acme.example","from":"billing@acme.example","subject":"Invoice 7"}` {
		t.Fatalf("stored mail: %s", got)
	}
	hook := ItemFromSuggestion(scouts.Suggestion{SourceType: scouts.KindWebhook, Title: "T", Payload: json.RawMessage(`{"body":"{\"a\":1}"}`)})
	if hook.Body["a"] != 1.0 {
		t.Fatalf("stored webhook body: %v", hook.Body)
	}
}

// TestAgentItemFields: an AI agent's proposal as rules read it — every
// field it sent, an absent URL or action known to be empty; a stored card
// of an agent leaves the action unknown (it is in the card's plan).
func TestAgentItemFields(t *testing.T) {
	it := ItemFromMetadata(scouts.KindAgent, scouts.ItemMetadata{Title: "Post the note", Body: "Draft", Sender: "claude-code",
		ProposedKind: scouts.EntityTask, Actions: []scouts.RuleAction{{Action: "webhook.post"}}})
	if got, _ := json.Marshal(it.Fields); string(got) != `{"action":"webhook.post","body":"Draft","client":"claude-code","kind":"task","title":"Post the note","url":""}` {
		t.Fatalf("agent proposal: %s", got)
	}
	st := ItemFromSuggestion(scouts.Suggestion{SourceType: scouts.KindAgent, Title: "Post the note", Sender: "claude-code",
		ProposedKind: scouts.EntityNote, URL: "https://ci.example.com/1", Payload: json.RawMessage(`{"body":"Draft"}`)})
	if got, _ := json.Marshal(st.Fields); string(got) != `{"body":"Draft","client":"claude-code","kind":"note","title":"Post the note","url":"https://ci.example.com/1"}` {
		t.Fatalf("stored agent card: %s", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestOutcome: a matched rule's fields for the engine — title rendered,
// due resolved, project looked up, actions rendered; a missing project is
// a note, not a failure.
func TestOutcome(t *testing.T) {
	doc := `{"id":"inv","when":{"subject":{"contains_word":"invoice"}},"then":{"verdict":"show","kind":"task",
		"title":"Pay {{.domain}}","project":"Finance","due":"+2d","actions":[{"action":"gmail.label","params":{"label":"{{.domain}}"}}]}}`
	c, err := rules.Compile(rules.KindGmail, []byte(doc), rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	arrived := time.Date(2026, 5, 1, 18, 0, 0, 0, time.UTC)
	projects := map[string]string{"finance": "pj_1"}
	rs := &Rules{Kind: scouts.KindGmail, Set: rules.Set{c}, Loc: time.UTC,
		Project: func(_ context.Context, name string) (string, error) { return projects[strings.ToLower(name)], nil }}
	meta := scouts.ItemMetadata{Title: "Invoice 12", Sender: "billing@acme.example", ReceivedAt: arrived}
	out, err := rs.Match(context.Background(), meta)
	if err != nil || out == nil {
		t.Fatalf("%v %v", out, err)
	}
	if out.Title != "Pay acme.example" || out.ProjectID != "pj_1" || !out.Due.Equal(time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC)) ||
		out.Kind != scouts.EntityTask || len(out.Actions) != 1 || string(out.Actions[0].Params) != `{"label":"acme.example"}` || out.Actions[0].RuleID != "inv" {
		t.Fatalf("outcome: %+v", out)
	}
	delete(projects, "finance")
	out, _ = rs.Match(context.Background(), meta)
	if out.ProjectID != "" || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], `no project "Finance"`) {
		t.Fatalf("a missing project: %+v", out)
	}
}
