package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// RuleRow is one of a scout's rules as stored: the document as written
// (its enabled flag is the column) and its place in the scout's order.
type RuleRow struct {
	ScoutID   string
	ID        string
	Position  int
	Enabled   bool
	Doc       json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

const ruleCols = `scout_id, id, position, enabled, doc, created_at, updated_at`

func scanRule(row interface{ Scan(...any) error }) (RuleRow, error) {
	var r RuleRow
	var doc string
	var created, updated int64
	if err := row.Scan(&r.ScoutID, &r.ID, &r.Position, &r.Enabled, &doc, &created, &updated); err != nil {
		return r, err
	}
	r.Doc = json.RawMessage(doc)
	r.CreatedAt, r.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return r, nil
}

// ListRules returns a scout's rules in the order they are tried.
func (d *DB) ListRules(ctx context.Context, scoutID string) ([]RuleRow, error) {
	return listRules(ctx, d.read(), scoutID)
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func listRules(ctx context.Context, q querier, scoutID string) ([]RuleRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+ruleCols+` FROM scout_rules WHERE scout_id = ? ORDER BY position, id`, scoutID)
	if err != nil {
		return nil, fmt.Errorf("localdb: list rules: %w", err)
	}
	defer rows.Close()
	var out []RuleRow
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: list rules: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("localdb: list rules: %w", err)
	}
	return out, nil
}

// AddRule stores a new rule at position (clamped; -1 or past the end
// appends), moving the rules after it down. A scout holds at most max
// rules; an id already used in the scout is a conflict.
func (d *DB) AddRule(ctx context.Context, r RuleRow, max int) (RuleRow, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		list, err := listRules(ctx, tx, r.ScoutID)
		if err != nil {
			return err
		}
		if len(list) >= max {
			return scouts.Errorf(scouts.EInvalid, "scout %s already has %d rules, the most it can have", r.ScoutID, max)
		}
		ids := make([]string, 0, len(list)+1)
		for _, o := range list {
			if o.ID == r.ID {
				return scouts.Errorf(scouts.EConflict, "scout %s already has a rule %q", r.ScoutID, r.ID)
			}
			ids = append(ids, o.ID)
		}
		if r.Position < 0 || r.Position > len(ids) {
			r.Position = len(ids)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO scout_rules (`+ruleCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			r.ScoutID, r.ID, r.Position, r.Enabled, string(r.Doc), r.CreatedAt.UnixMilli(), r.UpdatedAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("localdb: add rule: %w", err)
		}
		return renumber(ctx, tx, r.ScoutID, slices.Insert(ids, r.Position, r.ID))
	})
	return r, err
}

// UpdateRule replaces a rule's document and enabled flag, keeping its
// place.
func (d *DB) UpdateRule(ctx context.Context, r RuleRow) (RuleRow, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE scout_rules SET doc = ?, enabled = ?, updated_at = ? WHERE scout_id = ? AND id = ?`,
			string(r.Doc), r.Enabled, r.UpdatedAt.UnixMilli(), r.ScoutID, r.ID)
		if err != nil {
			return fmt.Errorf("localdb: update rule: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("rule", r.ID)
		}
		row := tx.QueryRowContext(ctx, `SELECT `+ruleCols+` FROM scout_rules WHERE scout_id = ? AND id = ?`, r.ScoutID, r.ID)
		r, err = scanRule(row)
		return err
	})
	return r, err
}

// DeleteRule deletes a rule; the ones after it move up.
func (d *DB) DeleteRule(ctx context.Context, scoutID, id string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM scout_rules WHERE scout_id = ? AND id = ?`, scoutID, id)
		if err != nil {
			return fmt.Errorf("localdb: delete rule: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("rule", id)
		}
		list, err := listRules(ctx, tx, scoutID)
		if err != nil {
			return err
		}
		ids := make([]string, len(list))
		for i, r := range list {
			ids[i] = r.ID
		}
		return renumber(ctx, tx, scoutID, ids)
	})
}

// ReorderRules puts a scout's rules in the order of ids, which must name
// each of them exactly once.
func (d *DB) ReorderRules(ctx context.Context, scoutID string, ids []string, at time.Time) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		list, err := listRules(ctx, tx, scoutID)
		if err != nil {
			return err
		}
		have := make([]string, len(list))
		for i, r := range list {
			have[i] = r.ID
		}
		want := slices.Clone(ids)
		slices.Sort(have)
		slices.Sort(want)
		if !slices.Equal(have, want) {
			return scouts.Errorf(scouts.EInvalid, "the new order must name each of the scout's %d rules once (it has: %v)", len(list), have)
		}
		if err := renumber(ctx, tx, scoutID, ids); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE scout_rules SET updated_at = ? WHERE scout_id = ?`, at.UnixMilli(), scoutID)
		return err
	})
}

// ReplaceRules makes a scout's rules exactly rows, in their order, in one
// transaction: a rollback or an import that fails or is cut short half way
// leaves the rules it found, never some of them deleted. A scout holds at
// most max rules; an id twice is a conflict.
func (d *DB) ReplaceRules(ctx context.Context, scoutID string, rows []RuleRow, max int) error {
	if len(rows) > max {
		return scouts.Errorf(scouts.EInvalid, "%d rules, more than the %d a scout can have", len(rows), max)
	}
	return d.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM scout_rules WHERE scout_id = ?`, scoutID); err != nil {
			return fmt.Errorf("localdb: replace rules: %w", err)
		}
		seen := make(map[string]bool, len(rows))
		for i, r := range rows {
			if seen[r.ID] {
				return scouts.Errorf(scouts.EConflict, "scout %s would have the rule %q twice", scoutID, r.ID)
			}
			seen[r.ID] = true
			_, err := tx.ExecContext(ctx, `INSERT INTO scout_rules (`+ruleCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				scoutID, r.ID, i, r.Enabled, string(r.Doc), r.CreatedAt.UnixMilli(), r.UpdatedAt.UnixMilli())
			if err != nil {
				return fmt.Errorf("localdb: replace rules: rule %s: %w", r.ID, err)
			}
		}
		return nil
	})
}

// MoveGmailRules moves a Gmail scout's old allow/deny rules into the rules
// table in one transaction: the converted rules go after any the scout
// already has, and the scout's configuration is replaced by config (the
// same without them), so a crash leaves either both or neither.
func (d *DB) MoveGmailRules(ctx context.Context, scoutID string, config json.RawMessage, rows []RuleRow) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		list, err := listRules(ctx, tx, scoutID)
		if err != nil {
			return err
		}
		for i, r := range rows {
			_, err := tx.ExecContext(ctx, `INSERT INTO scout_rules (`+ruleCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				scoutID, r.ID, len(list)+i, r.Enabled, string(r.Doc), r.CreatedAt.UnixMilli(), r.UpdatedAt.UnixMilli())
			if err != nil {
				return fmt.Errorf("localdb: move gmail rule %s: %w", r.ID, err)
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE scouts SET config = ? WHERE id = ?`, string(config), scoutID)
		if err != nil {
			return fmt.Errorf("localdb: move gmail rules: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("scout", scoutID)
		}
		return nil
	})
}

// renumber gives the rules positions 0, 1, … in the order of ids.
func renumber(ctx context.Context, tx *sql.Tx, scoutID string, ids []string) error {
	for i, id := range ids {
		if _, err := tx.ExecContext(ctx, `UPDATE scout_rules SET position = ? WHERE scout_id = ? AND id = ?`, i, scoutID, id); err != nil {
			return fmt.Errorf("localdb: order rules: %w", err)
		}
	}
	return nil
}
