package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// FillEntityBody puts an item's text in the entity its approval created;
// see engine.Store. The WHERE on the placeholder makes it a no-op once the
// body has changed, whether by an earlier run of the same step or by the
// person.
func (d *DB) FillEntityBody(ctx context.Context, kind scouts.EntityKind, id, placeholder, body string, at time.Time) (scouts.Entity, bool, error) {
	t, err := tableFor(kind)
	if err != nil {
		return scouts.Entity{}, false, err
	}
	var e scouts.Entity
	var filled bool
	err = d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE `+t.name+` SET body = ?, updated_at = ? WHERE id = ? AND body = ?`, body, at.UnixMilli(), id, placeholder)
		if err != nil {
			return fmt.Errorf("localdb: fill the body of %s %s: %w", kind, id, err)
		}
		n, _ := res.RowsAffected()
		filled = n > 0
		e, err = getEntity(ctx, tx, kind, id)
		return err
	})
	return e, filled, err
}
