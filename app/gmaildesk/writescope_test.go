package gmaildesk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/gmaildesk"
	"github.com/scouts-hq/scouts/app/internal/gmailtest"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// gmail.label adds only the labels of the scout's write scope (by default
// those below Scouts) and the label the person set for every Gmail card in
// Settings → Policies. A label outside it — one a rule's template took
// from the mail, or a system label named by its id (TRASH) — is refused
// when the card is approved, naming the scope, and nothing reaches Gmail.
func TestGmailLabelStaysInsideTheWriteScope(t *testing.T) {
	ctx := context.Background()
	g := gmailtest.NewGoogle(t)
	d, _ := g.OpenConnected(t, gmaildesk.Local)
	sc := d.NewScout(gmaildesk.Local)
	d.WaitBaseline(nil, sc.ID)
	ids := []string{g.Deliver(1, "a"), g.Deliver(2, "b")}
	waitSuggested(t, d, sc.ID, ids)
	card := func(id string) scouts.Suggestion {
		s, err := d.Core.DB.SuggestionByRef(ctx, sc.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	approve := func(id string, labels ...string) error {
		plan := []engine.PlanChoice{{Action: actions.TaskCreate, Enabled: true}}
		for _, l := range labels {
			p, _ := json.Marshal(map[string]string{"label": l})
			plan = append(plan, engine.PlanChoice{Action: actions.GmailLabel, Params: p, Enabled: true})
		}
		_, _, err := d.Core.Engine.Approve(ctx, card(id).ID, engine.Approval{As: scouts.EntityTask, Plan: plan})
		return err
	}
	for _, l := range []string{"TRASH", "Receipts", "ScoutsX"} {
		err := approve(ids[0], l)
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "outside the scout's write scope [Scouts/**] (the default)") {
			t.Errorf("label %s: %v, want a refusal naming the write scope", l, err)
		}
	}
	if s := card(ids[0]); s.Status != scouts.StatusPending {
		t.Fatalf("a refused approval decided the card: %s", s.Status)
	}
	// The person's own default label is theirs for every Gmail card.
	if err := d.Core.Engine.SetPlanDefaults(ctx, engine.PlanDefaults{GmailArchive: true, GmailLabel: "Receipts"}, "test"); err != nil {
		t.Fatal(err)
	}
	if err := approve(ids[0], "Receipts", "scouts/Bills"); err != nil {
		t.Fatalf("the default label and one below Scouts: %v", err)
	}
	// The scope is checked again when the action runs: its labels are
	// added before the scope is narrowed below.
	d.Until("the labels added", func() bool {
		runs, _ := d.Core.DB.ActionRuns(ctx, card(ids[0]).ID)
		done := 0
		for _, r := range runs {
			if r.Action == actions.GmailLabel && r.State == engine.ActionDone {
				done++
			}
		}
		return done == 2
	}, func() string {
		runs, _ := d.Core.DB.ActionRuns(ctx, card(ids[0]).ID)
		return fmt.Sprintf("(actions %+v)", runs)
	})
	// A scope of no labels still lets the person's own label in.
	none := []string{}
	if _, err := d.Core.UpdateScout(ctx, sc.ID, core.ScoutPatch{WriteScope: &scouts.WriteScope{Labels: none}}); err != nil {
		t.Fatal(err)
	}
	if err := approve(ids[1], "Scouts"); err == nil || !strings.Contains(err.Error(), "[] (nothing)") {
		t.Fatalf("a label below Scouts with no labels in scope: %v", err)
	}
	if err := approve(ids[1], "Receipts"); err != nil {
		t.Fatalf("the person's own label with no labels in scope: %v", err)
	}
	if labels, _ := g.Gmail.Message(gmailtest.Account, ids[0]); slices.Contains(labels, "TRASH") || len(labels) != 4 {
		t.Fatalf("labels after the approval: %v, want the inbox's two and the two added", labels)
	}
}
