package cli

import (
	"context"
	"fmt"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
)

// runUndo takes back the decision on cards within the undo window: an
// approval (its entity deleted, what its plan had not run cancelled), a
// rejection, a card marked as spam (back in the lane it came from, the
// learner unlearning it). The engine's Undo, as the window's undo does.
func runUndo(ctx context.Context, args []string, env Env) error {
	return runLaneAction(ctx, undoAction, args, env)
}

var undoAction = laneAction{name: "undo", do: (*localclient.Client).Undo,
	want: "want one or more suggestion IDs (a decision can be undone for 30 seconds)",
	done: func(s apitype.Suggestion) string {
		lane := s.Lane
		if lane == "" {
			lane = "inbox"
		}
		return fmt.Sprintf("Undone: %s %q is pending again (%s)", s.ID, s.Title, lane)
	}}
