package cli

import (
	"context"
	"fmt"
)

// runUndo takes back the decision on cards within the undo window: an
// approval (its entity deleted, what its plan had not run cancelled), a
// rejection, a card marked as spam (back in the lane it came from, the
// learner unlearning it). The engine's Undo, as the window's undo does.
func runUndo(ctx context.Context, args []string, env Env) error {
	f := newFlags("undo", env, true)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErrorf("want one or more suggestion IDs (a decision can be undone for 30 seconds)")
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	for _, id := range pos {
		s, err := c.Undo(ctx, id)
		if err != nil {
			return withID(pos, id, err)
		}
		if f.json {
			if err := printJSON(env.Stdout, s); err != nil {
				return err
			}
			continue
		}
		lane := s.Lane
		if lane == "" {
			lane = "inbox"
		}
		fmt.Fprintf(env.Stdout, "Undone: %s %q is pending again (%s)\n", s.ID, s.Title, lane)
	}
	return nil
}
