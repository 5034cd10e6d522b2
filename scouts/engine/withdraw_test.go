package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
)

// TestASourceWithdrawsACard: a follow-up card (a reminder) comes into the
// inbox; its source withdrawing it expires it with the reason on its
// trail, announced; told again, or about a card never made, nothing
// changes; a decided card stays decided — and deciding a reminder
// teaches the learner nothing.
func TestASourceWithdrawsACard(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, true)
	reminder := func(title string) *scouts.ItemMetadata {
		return &scouts.ItemMetadata{Title: title, ProposedKind: scouts.EntityTask, Reason: "test", Reminder: true,
			Lane: scouts.LaneScreened, LaneReason: "not for a reminder"}
	}
	if _, err := h.engine.Ingest(ctx, h.scout, []scouts.ItemRef{{Ref: "f1", Meta: reminder("No reply from Ana")},
		{Ref: "f2", Meta: reminder("No reply from Bob")}}); err != nil {
		t.Fatal(err)
	}
	f1 := h.byRef("f1")
	if f1.Status != scouts.StatusPending || f1.Lane != scouts.LaneInbox {
		t.Fatalf("reminder: %s in %s", f1.Status, f1.Lane)
	}
	if _, err := h.engine.Reject(ctx, h.byRef("f2").ID, "user"); err != nil {
		t.Fatal(err)
	}
	if st := h.learnState(); st.Decisions != 0 {
		t.Fatalf("rejecting a reminder taught the learner: %d decisions", st.Decisions)
	}

	withdraw := []scouts.ItemRef{{Ref: "f1", Withdraw: "Withdrawn: Ana answered on Fri 6 Nov."},
		{Ref: "f2", Withdraw: "Withdrawn: Bob answered."}, {Ref: "never", Withdraw: "Withdrawn: nobody."}}
	if n, err := h.engine.Ingest(ctx, h.scout, withdraw); err != nil || n != 0 {
		t.Fatalf("withdraw: %d new, %v", n, err)
	}
	if ev := h.waitResolved("f1"); ev.Status != scouts.StatusExpired {
		t.Fatalf("announced %+v", ev)
	}
	f1 = h.byRef("f1")
	if f1.Status != scouts.StatusExpired {
		t.Fatalf("withdrawn card: %s", f1.Status)
	}
	said := func() (out []string) {
		for _, e := range h.auditOf(f1.TraceID) {
			if e.Type == scouts.AuditExpired {
				out = append(out, e.Summary+" by "+e.Refs["actor"])
			}
		}
		return out
	}
	if got := strings.Join(said(), "\n"); got != "Withdrawn: Ana answered on Fri 6 Nov. by scout" {
		t.Fatalf("trail: %q", got)
	}
	if s := h.byRef("f2"); s.Status != scouts.StatusRejected {
		t.Fatalf("a decided card withdrawn: %s", s.Status)
	}
	if _, err := h.db.SuggestionByRef(ctx, h.scout.ID, "never"); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Fatalf("a card made of a withdrawal: %v", err)
	}
	if _, err := h.engine.Ingest(ctx, h.scout, withdraw[:1]); err != nil {
		t.Fatal(err)
	}
	if got := said(); len(got) != 1 {
		t.Fatalf("withdrawn twice: %q", got)
	}
}
