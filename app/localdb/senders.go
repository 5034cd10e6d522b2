package localdb

import (
	"context"
	"database/sql"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// QueueActions adds actions to a suggestion whatever its status; see
// engine.Store.
func (d *DB) QueueActions(ctx context.Context, id string, build func(scouts.Suggestion, []engine.ActionRun) engine.LaneRecord) (scouts.Suggestion, error) {
	var sug scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if sug, err = getSuggestion(ctx, tx, id); err != nil {
			return err
		}
		existing, err := listActions(ctx, tx, `WHERE suggestion_id = ? ORDER BY n`, id)
		if err != nil {
			return err
		}
		rec := build(sug, existing)
		if err := insertActions(ctx, tx, rec.Actions); err != nil {
			return err
		}
		return insertAudit(ctx, tx, rec.Audit...)
	})
	return sug, err
}

// ActionRunsOf returns every run of an action for a scout's cards, oldest
// first (the Senders view: which senders were unsubscribed from).
func (d *DB) ActionRunsOf(ctx context.Context, scoutID, action string) ([]engine.ActionRun, error) {
	return listActions(ctx, d.read(), `WHERE scout_id = ? AND action = ? ORDER BY created_at, id`, scoutID, action)
}
