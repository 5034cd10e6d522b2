package engine

import (
	"context"

	"github.com/scouts-hq/scouts/scouts"
)

// categorise asks the configured model what the item should become and
// merges its proposal into the assessment; it returns the kind to propose.
// The model's fields win over the content cues' for what it fills (its
// dates replace the cues' dates as a whole, so that AllDay stays theirs);
// its title is kept apart, as ProposedTitle, so the card keeps the
// original subject. Items the source already put in Spam or Screened are
// not sent: nobody is asked to file them, and a model's tokens are capped.
// A failure is logged and noted on the item's trail, never fatal.
func (a *assessor) categorise(ctx context.Context, meta scouts.ItemMetadata, text string, kind scouts.EntityKind, as *assessment) scouts.EntityKind {
	fn := a.e.cfg.Learning.Categorise
	if fn == nil || meta.Lane == scouts.LaneSpam || meta.Lane == scouts.LaneScreened {
		return kind
	}
	p, err := fn(ctx, a.s, meta, text)
	if err != nil {
		a.e.log.Warn("categorisation skipped", "scout", a.s.ID, "err", err)
		as.notes = append(as.notes, "categorisation skipped: "+err.Error())
		return kind
	}
	if p.Kind != "" {
		kind, as.KindFrom = p.Kind, "model"
	}
	if !p.Due.IsZero() || !p.StartsAt.IsZero() {
		as.Due, as.StartsAt, as.EndsAt, as.AllDay = p.Due, p.StartsAt, p.EndsAt, p.AllDay
	}
	if p.ProjectID != "" {
		as.ProjectID = p.ProjectID
	}
	if p.Title != "" && p.Title != meta.Title {
		as.ProposedTitle = clip(p.Title, scouts.MaxTitleBytes)
	}
	as.Why = append(as.Why, p.Reasons...)
	return kind
}
