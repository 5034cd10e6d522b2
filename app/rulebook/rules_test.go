package rulebook_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/bus"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// ruleIDs lists a scout's rules as "id" or "id(off)", in order.
func ruleIDs(t *testing.T, c *core.Core, scoutID string) []string {
	t.Helper()
	list, err := c.Rules().List(context.Background(), scoutID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, v := range list {
		if v.Position != i {
			t.Fatalf("rule %s at position %d, listed %d", v.Rule.ID, v.Position, i)
		}
		id := v.Rule.ID
		if !v.Rule.IsEnabled() {
			id += "(off)"
		}
		out = append(out, id)
	}
	return out
}

// waitUntil waits for cond, looking again after each event of the core's
// bus: cards, rule changes and the relay's answers (a relay stores a
// scout's rules before it answers the operation that sent them, and the
// desktop announces the answer) are all announced once true.
func waitUntil(t *testing.T, bus *bus.Bus, what string, cond func() bool) {
	t.Helper()
	gmailtest.UntilBus(t, bus, what, cond)
}

// TestRulesOfAFolderScout: a folder scout's rules through the core — add,
// list, edit, switch off and on, reorder, delete — refuse bad documents
// with the rule and place named, preview on the latest items from what
// cards keep, and decide new items.
func TestRulesOfAFolderScout(t *testing.T) {
	ctx := context.Background()
	folder := t.TempDir()
	c, _ := openCoreIn(t, t.TempDir())
	cfg, _ := json.Marshal(map[string]any{"path": folder})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "In", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Scout.ID
	for name, text := range map[string]string{"invoice-acme.txt": "Invoice 42 from ACME, due in a week", "notes.md": "# Notes\nnothing much"} {
		if err := os.WriteFile(filepath.Join(folder, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.Engine.Trigger(id)
	waitUntil(t, c.Bus, "two cards", func() bool {
		l, _ := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: id})
		return len(l) == 2
	})

	invoices := `{"id":"invoices","name":"Invoices","when":{"name":{"contains":"invoice"}},
		"then":{"verdict":"show","kind":"task","title":"Pay {{.name}}","due":"+3d"}}`
	// Preview before saving: from the cards, the name is known; the file's
	// size is not kept, so a rule on it cannot tell.
	p, err := c.Rules().Preview(ctx, id, []byte(invoices))
	if err != nil {
		t.Fatal(err)
	}
	if p.Matched != 1 || p.Missed != 1 || p.Unknown != 0 || len(p.Items) != 2 {
		t.Fatalf("preview: %+v", p)
	}
	for _, it := range p.Items {
		if it.Result == "match" && (it.Would == nil || it.Would.Title != "Pay invoice-acme.txt" || it.Would.Kind != scouts.EntityTask ||
			it.Would.Lane != scouts.LaneInbox || it.Would.Due.IsZero() || !strings.Contains(it.Why, `name contains "invoice"`)) {
			t.Fatalf("the match would do: %+v %+v", it, it.Would)
		}
	}
	p, err = c.Rules().Preview(ctx, id, []byte(`{"id":"big","when":{"size":{"gt":10}},"then":{"verdict":"screen"}}`))
	if err != nil || p.Unknown != 2 || !slices.Equal(p.Items[0].UnknownFields, []string{"size"}) {
		t.Fatalf("a rule on the size: %+v %v", p, err)
	}

	if _, err := c.Rules().Add(ctx, id, []byte(invoices), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rules().Add(ctx, id, []byte(invoices), -1); scouts.ErrorCode(err) != scouts.EConflict {
		t.Fatalf("the same id twice: %v", err)
	}
	_, err = c.Rules().Add(ctx, id, []byte(`{"id":"bad","when":{"subject":{"contains":"x"}},"then":{"verdict":"show"}}`), -1)
	if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), `rule "bad" at /when/subject`) {
		t.Fatalf("a Gmail field on a folder scout: %v", err)
	}
	_, err = c.Rules().Add(ctx, id, []byte(`{"id":"arch","when":{"ext":{"equals":"md"}},"then":{"verdict":"show","actions":[{"action":"gmail.archive"}]}}`), -1)
	if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "does not apply to folder") {
		t.Fatalf("a Gmail action on a folder scout: %v", err)
	}
	_, err = c.Rules().Add(ctx, id, []byte(`{"id":"nope","when":{"ext":{"equals":"md"}},"then":{"verdict":"show","actions":[{"action":"file.frobnicate"}]}}`), -1)
	if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "unknown action") {
		t.Fatalf("an action the catalogue does not have: %v", err)
	}
	if _, err := c.Rules().Add(ctx, id, []byte(`{"id":"md","when":{"ext":{"equals":"md"}},"then":{"verdict":"screen"}}`), 0); err != nil {
		t.Fatal(err)
	}
	if got := ruleIDs(t, c, id); !slices.Equal(got, []string{"md", "invoices"}) {
		t.Fatalf("order: %v", got)
	}
	if _, err := c.Rules().SetEnabled(ctx, id, "md", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rules().Reorder(ctx, id, []string{"invoices", "md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rules().Reorder(ctx, id, []string{"invoices"}); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("an order that leaves a rule out: %v", err)
	}
	if got := ruleIDs(t, c, id); !slices.Equal(got, []string{"invoices", "md(off)"}) {
		t.Fatalf("after reorder and disable: %v", got)
	}
	if _, err := c.Rules().Move(ctx, id, "md", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rules().Update(ctx, id, "md", []byte(`{"id":"other","when":{"ext":{"equals":"md"}},"then":{"verdict":"spam"}}`)); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("an edit that changes the id: %v", err)
	}
	v, err := c.Rules().Update(ctx, id, "md", []byte(`{"when":{"ext":{"equals":"md"}},"then":{"verdict":"spam"}}`))
	if err != nil || v.Rule.Then.Verdict != "spam" || !v.Rule.IsEnabled() || v.Position != 0 {
		t.Fatalf("edit: %+v %v", v, err)
	}
	// The preview of a saved rule says which rule before it decides.
	p, err = c.Rules().Preview(ctx, id, []byte(`{"id":"invoices","when":{"name":{"exists":true}},"then":{"verdict":"show"}}`))
	if err != nil || p.Matched != 2 {
		t.Fatalf("preview: %+v %v", p, err)
	}
	for _, it := range p.Items {
		if want := map[bool]string{true: "md", false: ""}[strings.HasSuffix(it.Suggestion.Path, ".md")]; it.EarlierRule != want {
			t.Fatalf("%s: earlier rule %q, want %q", it.Suggestion.Path, it.EarlierRule, want)
		}
	}
	if err := c.Rules().Delete(ctx, id, "md"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rules().Delete(ctx, id, "md"); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("deleting twice: %v", err)
	}

	// New items meet the rules.
	if err := os.WriteFile(filepath.Join(folder, "invoice-beta.txt"), []byte("Invoice 7"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Engine.Trigger(id)
	var got scouts.Suggestion
	waitUntil(t, c.Bus, "the new invoice's card", func() bool {
		l, _ := c.DB.ListSuggestions(ctx, localdb.SuggestionFilter{ScoutID: id})
		for _, s := range l {
			if filepath.Base(s.Path) == "invoice-beta.txt" {
				got = s
				return true
			}
		}
		return false
	})
	if got.Title != "Pay invoice-beta.txt" || got.ProposedKind != scouts.EntityTask || got.Assessment.RuleID != "invoices" || got.Assessment.Due.IsZero() {
		t.Fatalf("the new invoice: %q %s rule %q due %v", got.Title, got.ProposedKind, got.Assessment.RuleID, got.Assessment.Due)
	}
}

// oldGmailRules has each shape of the old allow/deny lists.
var oldGmailRules = []triage.Rule{
	{ID: "partner", Action: triage.Deny, Domains: []string{"partner.example"}},
	{ID: "boss", Action: triage.Allow, Senders: []string{"boss@corp.example"}, SubjectWords: []string{"urgent", "today"}},
	{ID: "lists", Action: triage.Ignore, ListIDs: []string{"dev.lists.example.org"}},
}

// relayRules returns the rules the relay holds for a scout.
func relayRules(t *testing.T, r *gmailtest.Relay, scoutID string) []triage.Rule {
	t.Helper()
	cs, err := r.DB.GmailScout(context.Background(), scoutID)
	if err != nil {
		return nil
	}
	var out []triage.Rule
	if cs.Gmail.Rules != "" {
		json.Unmarshal([]byte(cs.Gmail.Rules), &out)
	}
	return out
}

func sameRules(a, b []triage.Rule) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestGmailRulesReachTheRelay: a relay-triage scout created with the old
// allow/deny lists gets them as rules of the grammar (its configuration
// keeps none), and the relay triages with them, compiled back: a denied
// domain's mail arrives as spam decided by that rule. A rule the relay
// cannot express, put first, leaves the relay no rules at all, so that it
// never decides what the desktop's first rule would have.
func TestGmailRulesReachTheRelay(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	r := g.StartRelay(t)
	d := g.OpenDesktop(t, t.TempDir(), gmailtest.DesktopOptions{RelayURL: r.URL, RelayToken: r.Token})
	d.Connect()
	cfg, _ := json.Marshal(map[string]any{"email": gmailtest.Account, "mode": gmaildesk.RelayTriage, "rules": oldGmailRules})
	cr, err := d.Core.CreateScout(ctx, core.NewScout{Kind: scouts.KindGmail, Name: "Mail", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Scout.ID
	waitUntil(t, d.Core.Bus, "the relay's rules", func() bool { return sameRules(relayRules(t, r, id), oldGmailRules) })
	if got := ruleIDs(t, d.Core, id); !slices.Equal(got, []string{"partner", "boss", "lists"}) {
		t.Fatalf("rules: %v", got)
	}
	s, _ := d.Core.DB.GetScout(ctx, id)
	if strings.Contains(string(s.Config), "rules") {
		t.Fatalf("the configuration still holds the old rules: %s", s.Config)
	}
	d.WaitBaseline(r, id)
	msg := g.Deliver(1, "denied") // from bob@partner.example
	var sug scouts.Suggestion
	waitUntil(t, d.Core.Bus, "the denied mail's card", func() bool {
		sug, err = d.Core.DB.SuggestionByRef(ctx, id, msg)
		return err == nil
	})
	if sug.Lane != scouts.LaneSpam || sug.Assessment.RuleID != "partner" || !strings.HasPrefix(sug.Assessment.Why[0], "rule “partner”") {
		t.Fatalf("the denied mail: lane %s, rule %q, why %q", sug.Lane, sug.Assessment.RuleID, sug.Assessment.Why)
	}
	if _, err := d.Core.Rules().Add(ctx, id, []byte(`{"id":"re","when":{"subject":{"regex":"^re:"}},"then":{"verdict":"show"}}`), 0); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, d.Core.Bus, "the relay's rules to go", func() bool { return len(relayRules(t, r, id)) == 0 })
	list, _ := d.Core.Rules().List(ctx, id)
	for _, v := range list {
		if v.Relay {
			t.Fatalf("rule %s is listed as applied by the relay", v.Rule.ID)
		}
	}
	if err := d.Core.Rules().Delete(ctx, id, "re"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, d.Core.Bus, "the relay's rules back", func() bool { return sameRules(relayRules(t, r, id), oldGmailRules) })
}

// TestGmailRulesMigratedOnStart: a database from before rules had their
// own table keeps a Gmail scout's allow/deny lists in its configuration;
// the agent moves them when it starts, once, nothing lost.
func TestGmailRulesMigratedOnStart(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	dir := t.TempDir()
	d := g.OpenDesktop(t, dir, gmailtest.DesktopOptions{})
	d.Connect()
	cfg, _ := json.Marshal(map[string]any{"email": gmailtest.Account, "mode": gmaildesk.Local, "rules": oldGmailRules})
	now := time.Now().UTC().Truncate(time.Millisecond)
	s := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindGmail, Name: "old", Enabled: false, Review: true, Config: cfg, CreatedAt: now, UpdatedAt: now}
	if err := d.Core.DB.CreateScout(ctx, s); err != nil {
		t.Fatal(err)
	}
	d.Close()
	for range 2 { // a second start changes nothing
		d = g.OpenDesktop(t, dir, gmailtest.DesktopOptions{})
		rows, err := d.Core.DB.ListRules(ctx, s.ID)
		if err != nil || len(rows) != len(oldGmailRules) {
			t.Fatalf("%d rules, %v", len(rows), err)
		}
		got, _ := d.Core.DB.GetScout(ctx, s.ID)
		var c map[string]any
		json.Unmarshal(got.Config, &c)
		if _, ok := c["rules"]; ok || c["email"] != gmailtest.Account {
			t.Fatalf("configuration after the move: %s", got.Config)
		}
		if ids := ruleIDs(t, d.Core, s.ID); !slices.Equal(ids, []string{"partner", "boss", "lists"}) {
			t.Fatalf("rules: %v", ids)
		}
		d.Close()
	}
}

// TestGmailRulesSentByAnOldClient: a configuration that still carries the
// old allow/deny lists, sent to a scout whose rules the agent already
// holds, has them moved into its rules at once.
func TestGmailRulesSentByAnOldClient(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	d := g.OpenDesktop(t, t.TempDir(), gmailtest.DesktopOptions{})
	d.Connect()
	sc := d.NewScout(gmaildesk.Local)
	if got := ruleIDs(t, d.Core, sc.ID); len(got) != 0 {
		t.Fatalf("a new scout's rules: %v", got)
	}
	cfg, _ := json.Marshal(map[string]any{"email": gmailtest.Account, "mode": gmaildesk.Local, "rules": oldGmailRules})
	if _, err := d.Core.UpdateScout(ctx, sc.ID, core.ScoutPatch{Config: cfg}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, d.Core.Bus, "the old rules moved", func() bool {
		list, err := d.Core.Rules().List(ctx, sc.ID)
		return err == nil && len(list) == len(oldGmailRules)
	})
	if got := ruleIDs(t, d.Core, sc.ID); !slices.Equal(got, []string{"partner", "boss", "lists"}) {
		t.Fatalf("rules: %v", got)
	}
}
