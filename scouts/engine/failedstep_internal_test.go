package engine

import (
	"testing"

	"github.com/scouts-hq/scouts/scouts/actions"
)

// TestFailedStepNFindsTheStepWhoseFailureAddedTheOnFailureStep: the card
// says which of its actions an on_failure step runs because of; it is
// found from the name queueOnFailure gave it (run.failed_step), among
// two steps of the same action and another rule's steps before them.
func TestFailedStepNFindsTheStepWhoseFailureAddedTheOnFailureStep(t *testing.T) {
	hook := &Step{}
	all := []ActionRun{
		{N: 1, Action: "note.create", Origin: "kind", State: ActionDone},
		{N: 2, Action: "webhook.post", Origin: "rule:other", Step: hook, State: ActionDone},
		{N: 3, Action: "webhook.post", Origin: "rule:hooks", Step: hook, State: ActionDone},
		{N: 4, Action: "webhook.post", Origin: "rule:hooks", Step: hook, After: 3, State: ActionFailed, LastError: "HTTP 500"},
		{N: 5, Action: "gmail.label", Origin: "rule:hooks", Step: hook, After: 4, State: ActionQueued},
	}
	onFailure := []PlanStep{{Action: "webhook.post", Mode: actions.Allow, Step: &Step{OnFailure: true}}}
	added, _ := queueOnFailure(all[3], all, onFailure)
	if len(added) != 1 {
		t.Fatalf("on_failure steps added: %+v", added)
	}
	all = append(all, added[0])
	if got := FailedStepN(all, added[0]); got != 4 {
		t.Fatalf("the on_failure step runs because of action %d (%s), want 4", got, added[0].Step.Run["failed_step"])
	}
	if got := FailedStepN(all, all[4]); got != 0 {
		t.Fatalf("a step that is no on_failure step: %d, want 0", got)
	}
}
