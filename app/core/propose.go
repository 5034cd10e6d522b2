package core

import (
	"context"
	"log/slog"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/cue"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// proposeFromContent is what an item's content suggests on its own (kind,
// due date, event time, project), read by scouts/cue. It never fails:
// without cues the source's kind stands.
func (c *Core) proposeFromContent(ctx context.Context, s scouts.Scout, meta scouts.ItemMetadata, text string) engine.ContentProposal {
	return ProposeFromContent(ctx, c.DB, c.now, c.log, meta, text)
}

// ProposeFromContent is the engine's content step (engine.LearningConfig's
// Propose) over db: exported so that `scouts eval` runs the same step as
// the agent.
func ProposeFromContent(ctx context.Context, db *localdb.DB, now func() time.Time, log *slog.Logger, meta scouts.ItemMetadata, text string) engine.ContentProposal {
	in := cue.Input{Title: meta.Title, Text: text, Ref: meta.ReceivedAt, Loc: time.Local, DefaultKind: meta.ProposedKind}
	if in.Ref.IsZero() {
		in.Ref = now()
	}
	if in.DefaultKind == "" {
		in.DefaultKind = scouts.EntityTask
	}
	projects, err := db.OpenProjects(ctx)
	if err != nil {
		log.Warn("content cues: listing projects", "err", err)
	}
	for _, p := range projects {
		in.Projects = append(in.Projects, cue.Project{ID: p.ID, Name: p.Title})
	}
	p := cue.Propose(in)
	out := engine.ContentProposal{Kind: p.Kind, Due: p.Due, StartsAt: p.Start, EndsAt: p.End, AllDay: p.AllDay, Reasons: p.Reasons}
	if out.Due.IsZero() && (!p.Start.IsZero() || !p.Date.IsZero()) {
		// The date the content names is also the due date of a task made
		// of the item, whatever the content proposes: a rule that makes
		// invoices tasks gets "due on the date in the mail" (a time in it
		// read as an appointment, a bare date), as approving it as a task
		// does.
		out.Due = p.Start
		if out.Due.IsZero() {
			out.Due, out.AllDay = p.Date, p.DateAllDay
		}
	}
	// Only a task belongs to a project; for the other kinds the link is a
	// reason shown, not a field.
	if p.Kind == scouts.EntityTask {
		out.ProjectID = p.ProjectID
	}
	if p.Kind == in.DefaultKind && len(p.Reasons) == 0 {
		out.Kind = ""
	}
	return out
}
