package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/store"
)

// entityTable describes how one entity kind is stored. The four kinds share
// most columns; each table has only the columns its kind uses.
type entityTable struct {
	name string
	cols []string // beyond id, title, body, source_suggestion_id, created_at, updated_at
}

var entityTables = map[scouts.EntityKind]entityTable{
	scouts.EntityTask:    {"tasks", []string{"done", "due_at", "project_id"}},
	scouts.EntityNote:    {"notes", nil},
	scouts.EntityEvent:   {"events", []string{"starts_at", "ends_at", "location"}},
	scouts.EntityProject: {"projects", []string{"done"}},
}

func tableFor(k scouts.EntityKind) (entityTable, error) {
	t, ok := entityTables[k]
	if !ok {
		return t, scouts.Errorf(scouts.EInvalid, "unknown entity kind %q", k)
	}
	return t, nil
}

func (t entityTable) allCols() []string {
	return append([]string{"id", "title", "body", "source_suggestion_id", "created_at", "updated_at"}, t.cols...)
}

// selectCols are the columns scanEntity reads: the stored ones, then
// whether the entity's text is still to come (its approval's FillBody step
// has not run yet), read off the outbox rather than kept twice.
func (t entityTable) selectCols() string {
	return strings.Join(t.allCols(), ", ") + `, EXISTS (SELECT 1 FROM actions a WHERE a.suggestion_id = ` + t.name +
		`.source_suggestion_id AND a.action = '` + engine.FillBody + `' AND a.state IN ('queued', 'running'))`
}

func extraValue(e scouts.Entity, col string) any {
	switch col {
	case "done":
		return e.Done
	case "due_at":
		return store.Millis(e.Due)
	case "project_id":
		return nullStr(e.ProjectID)
	case "starts_at":
		return store.Millis(e.StartsAt)
	case "ends_at":
		return store.Millis(e.EndsAt)
	case "location":
		return e.Location
	}
	panic("localdb: unknown entity column " + col)
}

func insertEntity(ctx context.Context, q execer, e scouts.Entity) error {
	t, err := tableFor(e.Kind)
	if err != nil {
		return err
	}
	cols := t.allCols()
	args := []any{e.ID, e.Title, e.Body, nullStr(e.SourceSuggestionID), e.CreatedAt.UnixMilli(), e.UpdatedAt.UnixMilli()}
	for _, c := range t.cols {
		args = append(args, extraValue(e, c))
	}
	_, err = q.ExecContext(ctx, `INSERT INTO `+t.name+` (`+strings.Join(cols, ", ")+`) VALUES (?`+strings.Repeat(", ?", len(cols)-1)+`)`, args...)
	if err != nil {
		if strings.Contains(err.Error(), "FOREIGN KEY") {
			return scouts.Errorf(scouts.EInvalid, "%s refers to a project or suggestion that does not exist", e.Kind)
		}
		return fmt.Errorf("localdb: insert %s: %w", e.Kind, err)
	}
	return nil
}

func scanEntity(t entityTable, kind scouts.EntityKind, row interface{ Scan(...any) error }) (scouts.Entity, error) {
	e := scouts.Entity{Kind: kind}
	var src, project sql.NullString
	var created, updated int64
	var due, starts, ends sql.NullInt64
	dest := []any{&e.ID, &e.Title, &e.Body, &src, &created, &updated}
	for _, c := range t.cols {
		switch c {
		case "done":
			dest = append(dest, &e.Done)
		case "due_at":
			dest = append(dest, &due)
		case "project_id":
			dest = append(dest, &project)
		case "starts_at":
			dest = append(dest, &starts)
		case "ends_at":
			dest = append(dest, &ends)
		case "location":
			dest = append(dest, &e.Location)
		}
	}
	dest = append(dest, &e.BodyPending)
	if err := row.Scan(dest...); err != nil {
		return e, err
	}
	e.SourceSuggestionID = src.String
	e.ProjectID = project.String
	e.CreatedAt = time.UnixMilli(created).UTC()
	e.UpdatedAt = time.UnixMilli(updated).UTC()
	e.Due = store.FromMillis(due)
	e.StartsAt = store.FromMillis(starts)
	e.EndsAt = store.FromMillis(ends)
	return e, nil
}

func getEntity(ctx context.Context, q queryer, kind scouts.EntityKind, id string) (scouts.Entity, error) {
	t, err := tableFor(kind)
	if err != nil {
		return scouts.Entity{}, err
	}
	e, err := scanEntity(t, kind, q.QueryRowContext(ctx, `SELECT `+t.selectCols()+` FROM `+t.name+` WHERE id = ?`, id))
	if err != nil {
		return e, rowsErr(err, string(kind), id)
	}
	return e, nil
}

// CreateEntity stores a new entity made by hand (not from a suggestion).
func (d *DB) CreateEntity(ctx context.Context, e scouts.Entity) error {
	return d.tx(ctx, func(tx *sql.Tx) error { return insertEntity(ctx, tx, e) })
}

// GetEntity returns one entity.
func (d *DB) GetEntity(ctx context.Context, kind scouts.EntityKind, id string) (scouts.Entity, error) {
	return getEntity(ctx, d.read(), kind, id)
}

// EntityFilter selects entities to list.
type EntityFilter struct {
	// Done filters tasks and projects by completion; nil lists both.
	Done      *bool
	ProjectID string
	Limit     int // default 500, at most 5000
	// Snoozed lists snoozed tasks too; they are left out by default.
	Snoozed bool
}

// ListEntities returns entities of one kind, newest first.
func (d *DB) ListEntities(ctx context.Context, kind scouts.EntityKind, f EntityFilter) ([]scouts.Entity, error) {
	t, err := tableFor(kind)
	if err != nil {
		return nil, err
	}
	var where []string
	var args []any
	hasCol := func(c string) bool {
		for _, x := range t.cols {
			if x == c {
				return true
			}
		}
		return false
	}
	if f.Done != nil && hasCol("done") {
		where = append(where, "done = ?")
		args = append(args, *f.Done)
	}
	// A snoozed task is out of the lists until it returns (snooze.go).
	if kind == scouts.EntityTask && !f.Snoozed {
		where = append(where, "snoozed_until IS NULL")
	}
	if f.ProjectID != "" && hasCol("project_id") {
		where = append(where, "project_id = ?")
		args = append(args, f.ProjectID)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 500
	}
	limit = min(limit, 5000)
	q := `SELECT ` + t.selectCols() + ` FROM ` + t.name
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	order := "created_at DESC, id DESC"
	if kind == scouts.EntityEvent {
		order = "starts_at IS NULL, starts_at, id"
	}
	q += fmt.Sprintf(` ORDER BY %s LIMIT %d`, order, limit)
	rows, err := d.read().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("localdb: list %s: %w", t.name, err)
	}
	defer rows.Close()
	out := []scouts.Entity{}
	for rows.Next() {
		e, err := scanEntity(t, kind, rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: list %s: %w", t.name, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// UpdateEntity applies a patch to an entity, validates the result and
// stores it, in one transaction, and returns the updated entity.
func (d *DB) UpdateEntity(ctx context.Context, kind scouts.EntityKind, id string, p scouts.EntityPatch, at time.Time) (scouts.Entity, error) {
	t, err := tableFor(kind)
	if err != nil {
		return scouts.Entity{}, err
	}
	var e scouts.Entity
	err = d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := getEntity(ctx, tx, kind, id)
		if err != nil {
			return err
		}
		e = p.Apply(cur)
		e.UpdatedAt = at
		if err := e.Validate(); err != nil {
			return err
		}
		sets := []string{"title = ?", "body = ?", "updated_at = ?"}
		args := []any{e.Title, e.Body, e.UpdatedAt.UnixMilli()}
		for _, c := range t.cols {
			sets = append(sets, c+" = ?")
			args = append(args, extraValue(e, c))
		}
		args = append(args, id)
		if _, err := tx.ExecContext(ctx, `UPDATE `+t.name+` SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...); err != nil {
			if strings.Contains(err.Error(), "FOREIGN KEY") {
				return scouts.Errorf(scouts.EInvalid, "project %s does not exist", e.ProjectID)
			}
			return fmt.Errorf("localdb: update %s: %w", kind, err)
		}
		return nil
	})
	return e, err
}

// DeleteEntity deletes an entity. Its suggestion stays approved: the
// decision happened, and the audit trail says so.
func (d *DB) DeleteEntity(ctx context.Context, kind scouts.EntityKind, id string) error {
	t, err := tableFor(kind)
	if err != nil {
		return err
	}
	return d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM `+t.name+` WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("localdb: delete %s: %w", kind, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(string(kind), id)
		}
		return nil
	})
}

// CountEntities returns how many entities of each kind exist.
func (d *DB) CountEntities(ctx context.Context) (map[scouts.EntityKind]int, error) {
	out := map[scouts.EntityKind]int{}
	for k, t := range entityTables {
		var n int
		if err := d.read().QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t.name).Scan(&n); err != nil {
			return nil, fmt.Errorf("localdb: count %s: %w", t.name, err)
		}
		out[k] = n
	}
	return out, nil
}
