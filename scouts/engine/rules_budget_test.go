package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// TestTooSlowRuleStillCardsTheItem: when a scout's rules run out of the
// item's evaluation budget on a 64 KiB file, the rules from the one that
// ran out on are not tried, the item is still carded as if no rule had
// matched, and its trail marks the rule as too slow (an audit event naming
// it). Before, the budget never ran out on accepted rules whatever they
// cost (the five files took 52 s).
func TestTooSlowRuleStillCardsTheItem(t *testing.T) {
	h := newHarness(t, true)
	var docs []string
	for i := range 20 {
		// Forty letters then an x: forty threads alive on every byte of
		// a file of letters, which never matches.
		docs = append(docs, fmt.Sprintf(`{"id":"r%d","when":{"text":{"regex":"[a-z]{40}x"}},"then":{"verdict":"spam"}}`, i))
	}
	h.withRules(engine.LearningConfig{}, docs...)
	h.start()
	h.addFile("big", "work/letters.txt", strings.Repeat("a", 64<<10), "")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	s := h.byRef("big")
	if s.ID == "" || s.Lane != scouts.LaneInbox || s.Assessment.RuleID != "" {
		t.Fatalf("card %q: lane %s, rule %q; want a card in the inbox that no rule decided", s.ID, s.Lane, s.Assessment.RuleID)
	}
	var slow []scouts.AuditEvent
	for _, e := range h.auditOf(s.TraceID) {
		switch e.Type {
		case "rule.too_slow":
			slow = append(slow, e)
		case scouts.AuditRuleMatched:
			t.Errorf("a rule matched: %s", e.Summary)
		}
	}
	if len(slow) != 1 {
		t.Fatalf("the trail has %d rule.too_slow events, want 1: %+v", len(slow), h.auditOf(s.TraceID))
	}
	id := slow[0].Refs["rule_id"]
	if !strings.HasPrefix(id, "r") || id == "r19" || !strings.Contains(slow[0].Summary, "“"+id+"”") || !strings.Contains(slow[0].Summary, "not tried") {
		t.Errorf("too slow: rule %q, %q", id, slow[0].Summary)
	}
}
