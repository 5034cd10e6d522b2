package core

import (
	"context"

	"github.com/scouts-hq/scouts/scouts"
)

// proposeFromContent is what an item's content suggests on its own (kind,
// due date, event time, project). It never fails: without cues it proposes
// nothing and the source's kind stands.
func (c *Core) proposeFromContent(ctx context.Context, s scouts.Scout, meta scouts.ItemMetadata, text string) scouts.ContentProposal {
	return scouts.ContentProposal{}
}
