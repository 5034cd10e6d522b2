package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/ruleset"
)

// withRules rebuilds the harness's engine (not yet started) with the
// learning configuration and rules for its folder scout, in order.
func (h *harness) withRules(l engine.LearningConfig, docs ...string) {
	h.t.Helper()
	var set rules.Set
	for _, d := range docs {
		c, err := rules.Compile(rules.KindFolder, []byte(d), rules.Options{})
		if err != nil {
			h.t.Fatal(err)
		}
		set = append(set, c)
	}
	h.withLearning(l)
	h.engine = engine.New(engine.Config{
		Store: h.db,
		Openers: map[scouts.Kind]scouts.Opener{scouts.KindFolder: func(context.Context, scouts.Scout) (scouts.SourceConnector, error) {
			return h.src, nil
		}},
		Emit:          func(e scouts.Event) { h.events <- e },
		Now:           func() time.Time { return *h.now.Load() },
		PollInterval:  time.Hour,
		SweepInterval: time.Hour,
		Learning:      l,
		Rules: func(_ context.Context, s scouts.Scout) (scouts.RuleSet, error) {
			return &ruleset.Rules{Kind: s.Kind, Set: set, Loc: time.UTC, Now: func() time.Time { return *h.now.Load() },
				Project: func(_ context.Context, name string) (string, error) {
					if strings.EqualFold(name, "finance") {
						return "pj_finance", nil
					}
					return "", nil
				}}, nil
		},
	})
}

// addFile adds a file item: its path, size and text.
func (h *harness) addFile(ref, path, text string, lane scouts.Lane) {
	h.src.mu.Lock()
	defer h.src.mu.Unlock()
	h.src.items = append(h.src.items, scouts.ItemRef{Ref: ref})
	name := path[strings.LastIndexByte(path, '/')+1:]
	h.src.meta[ref] = scouts.ItemMetadata{Title: name, Excerpt: text, Path: path, ProposedKind: scouts.EntityNote, Reason: "New file " + path,
		ReceivedAt: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC), Lane: lane, LaneReason: "source says " + string(lane),
		Facts: &scouts.ItemFacts{Size: int64(len(text)), Text: text}}
}

func (h *harness) ruleTrail(trace string) (summary string, ruleID string) {
	for _, e := range h.auditOf(trace) {
		if e.Type == scouts.AuditRuleMatched {
			return e.Summary, e.Refs["rule_id"]
		}
	}
	return "", ""
}

// TestRulesDecideLanes: the first enabled matching rule decides the lane —
// screen, spam, skip, or show even when the source said spam — and says
// so on the card and the trail; items no rule matches keep their lane.
func TestRulesDecideLanes(t *testing.T) {
	h := newHarness(t, true)
	h.withRules(engine.LearningConfig{},
		`{"id":"tmp","when":{"ext":{"equals":"tmp"}},"then":{"verdict":"screen"}}`,
		`{"id":"junk","when":{"path":{"starts_with":"junk/"}},"then":{"verdict":"spam"}}`,
		`{"id":"off","enabled":false,"when":{"name":{"contains":"keep"}},"then":{"verdict":"spam"}}`,
		`{"id":"logs","when":{"$or":[{"ext":{"equals":"log"}},{"size":{"gt":1000}}]},"then":{"verdict":"skip"}}`,
		`{"id":"vip","when":{"text":{"contains_word":"urgent"}},"then":{"verdict":"show"}}`,
	)
	h.start()
	h.addFile("a", "work/draft.tmp", "scratch", "")
	h.addFile("b", "junk/win-a-prize.txt", "you won", "")
	h.addFile("c", "work/keep-me.txt", "notes", "")
	h.addFile("d", "work/app.log", "lines", "")
	h.addFile("e", "work/big.txt", strings.Repeat("word ", 300), "")
	h.addFile("f", "work/alert.txt", "URGENT: the server is down", scouts.LaneSpam)
	h.addFile("g", "work/other.txt", "spammy text", scouts.LaneSpam)
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		lane         scouts.Lane
		rule, reason string
	}{
		"a": {scouts.LaneScreened, "tmp", "Screened by rule “tmp”: ext is \"tmp\""},
		"b": {scouts.LaneSpam, "junk", "Spam: rule “junk”: path starts with \"junk/\""},
		"c": {scouts.LaneInbox, "", ""},
		"d": {scouts.LaneScreened, "logs", "Skipped by rule “logs”: ext is \"log\""},
		"e": {scouts.LaneScreened, "logs", "Skipped by rule “logs”: size > 1000"},
		"f": {scouts.LaneInbox, "vip", ""},
		"g": {scouts.LaneSpam, "", "source says spam"},
	}
	for ref, w := range want {
		s := h.byRef(ref)
		if s.Lane != w.lane || s.Assessment.RuleID != w.rule || s.Assessment.LaneReason != w.reason {
			t.Errorf("%s: lane %s, rule %q, reason %q; want %s, %q, %q", ref, s.Lane, s.Assessment.RuleID, s.Assessment.LaneReason, w.lane, w.rule, w.reason)
		}
		summary, id := h.ruleTrail(s.TraceID)
		if id != w.rule {
			t.Errorf("%s: the trail names rule %q, want %q (%s)", ref, id, w.rule, summary)
		}
		if w.rule != "" && (len(s.Assessment.Why) == 0 || !strings.HasPrefix(s.Assessment.Why[0], "rule “"+w.rule+"”: ")) {
			t.Errorf("%s: why %q does not start with the rule", ref, s.Assessment.Why)
		}
	}
	if s, _ := h.ruleTrail(h.byRef("f").TraceID); !strings.Contains(s, `text contains the word "urgent"`) || !strings.Contains(s, "show verdict (inbox)") {
		t.Errorf("trail of f: %q", s)
	}
}

// TestRuleSetsKindTitleDueProjectActions: a rule's kind, templated title,
// due date, project and actions override the content cues and a model,
// and the card says what changed its kind.
func TestRuleSetsKindTitleDueProjectActions(t *testing.T) {
	h := newHarness(t, true)
	model := &scriptedModel{answer: func(string) (engine.ContentProposal, error) {
		return engine.ContentProposal{Kind: scouts.EntityEvent, Title: "A model's title", Due: modelDue, ProjectID: "pj_model"}, nil
	}}
	h.withRules(engine.LearningConfig{Off: true, Propose: cues, Categorise: model.categorise},
		`{"id":"invoices","when":{"$and":[{"ext":{"in":["pdf","txt"]}},{"text":{"contains_word":"invoice"}}]},
		  "then":{"verdict":"show","kind":"task","title":"Pay {{.name | upper}} ({{.size}} bytes, {{date \"date\" .received}})",
		  "project":"Finance","due":"+3d","actions":[{"action":"file.move","params":{"to":"paid/{{.name}}"}}]}}`,
		`{"id":"nowhere","when":{"text":{"contains":"orphan"}},"then":{"verdict":"show","project":"Nope"}}`,
	)
	h.start()
	h.addFile("inv", "in/acme.txt", "Invoice 42 from ACME", "")
	h.addFile("orphan", "in/orphan.txt", "an orphan note", "")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	s := h.byRef("inv")
	a := s.Assessment
	wantDue := time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC) // arrived 1 May
	if s.ProposedKind != scouts.EntityTask || a.KindFrom != "rule" || s.Title != "Pay ACME.TXT (20 bytes, 2026-05-01)" ||
		a.SourceTitle != "acme.txt" || !a.Due.Equal(wantDue) || a.ProjectID != "pj_finance" {
		t.Fatalf("card: kind %s from %s, title %q (source %q), due %v, project %q", s.ProposedKind, a.KindFrom, s.Title, a.SourceTitle, a.Due, a.ProjectID)
	}
	if len(a.RuleActions) != 1 || a.RuleActions[0].Action != "file.move" || string(a.RuleActions[0].Params) != `{"to":"paid/acme.txt"}` || a.RuleActions[0].RuleID != "invoices" {
		t.Fatalf("rule actions: %+v", a.RuleActions)
	}
	if !strings.Contains(s.Reason, "now proposed as a task from your rule “invoices”") {
		t.Fatalf("reason: %q", s.Reason)
	}
	summary, _ := h.ruleTrail(s.TraceID)
	for _, w := range []string{"kind task", "its title", "project pj_finance", "due 2026-05-04", "action file.move"} {
		if !strings.Contains(summary, w) {
			t.Errorf("trail %q lacks %q", summary, w)
		}
	}
	o := h.byRef("orphan")
	var notes []string
	for _, e := range h.auditOf(o.TraceID) {
		if e.Type == scouts.AuditItemNote {
			notes = append(notes, e.Summary)
		}
	}
	if o.Assessment.ProjectID != "pj_model" || !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, `no project "Nope"`) }) {
		t.Fatalf("a rule naming a missing project: project %q, notes %q", o.Assessment.ProjectID, notes)
	}
}

// TestRuleShowsDespiteLearner: once the learner screens what looks like
// what the person rejected, a rule that shows such items still puts them
// in the inbox, and the learner's kind does not override the rule's.
func TestRuleShowsDespiteLearner(t *testing.T) {
	h := newHarness(t, true)
	h.withRules(engine.LearningConfig{},
		`{"id":"keep-acme","when":{"text":{"contains":"acme"}},"then":{"verdict":"show","kind":"note"}}`)
	ctx := context.Background()
	if err := h.db.SetLearnSettings(ctx, h.scout.ID, scouts.LearnSettings{ColdStart: 6, ScreenBelow: 0.5, SpamAbove: 0.9, MinSpam: 10}); err != nil {
		t.Fatal(err)
	}
	h.start()
	for i := range 12 {
		h.addFile(fmt.Sprintf("n%d", i), fmt.Sprintf("news/digest-%d.txt", i), "weekly digest of offers and deals", "")
		h.addFile(fmt.Sprintf("w%d", i), fmt.Sprintf("work/report-%d.txt", i), "quarterly budget report to review", "")
	}
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for _, s := range h.suggestions(scouts.StatusPending) {
		var err error
		if strings.HasPrefix(s.SourceRef, "n") {
			_, err = h.engine.Reject(ctx, s.ID, "user")
		} else {
			_, _, err = h.engine.Approve(ctx, s.ID, engine.Approval{As: scouts.EntityTask})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	h.addFile("n-new", "news/digest-99.txt", "weekly digest of offers and deals", "")
	h.addFile("n-acme", "news/digest-acme.txt", "weekly digest of offers and deals from acme", "")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if s := h.byRef("n-new"); s.Lane != scouts.LaneScreened {
		t.Fatalf("without a rule the learner screens it: %s (%q)", s.Lane, s.Assessment.LaneReason)
	}
	s := h.byRef("n-acme")
	if s.Lane != scouts.LaneInbox || s.Assessment.RuleID != "keep-acme" || s.Assessment.Approve < 0 || s.Assessment.Approve >= 0.5 ||
		s.ProposedKind != scouts.EntityNote || s.Assessment.KindFrom != "rule" {
		t.Fatalf("with the rule: lane %s (%q), rule %q, approve %v, kind %s from %s", s.Lane, s.Assessment.LaneReason, s.Assessment.RuleID,
			s.Assessment.Approve, s.ProposedKind, s.Assessment.KindFrom)
	}
}
