package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/actions"
	"github.com/scouts-hq/scouts/scouts/engine"
)

const actionCols = `suggestion_id, n, key, trace_id, scout_id, source_ref, action, params, origin, mode, mode_source,
	phase, decided_by, state, attempts, last_error, next_at, result, created_at, updated_at, after_n, step`

func scanAction(row interface{ Scan(...any) error }) (engine.ActionRun, error) {
	var r engine.ActionRun
	var params string
	var result, step sql.NullString
	var next, created, updated int64
	err := row.Scan(&r.SuggestionID, &r.N, &r.Key, &r.TraceID, &r.ScoutID, &r.SourceRef, &r.Action, &params, &r.Origin,
		&r.Mode, &r.ModeSource, &r.Phase, &r.By, &r.State, &r.Attempts, &r.LastError, &next, &result, &created, &updated, &r.After, &step)
	if err != nil {
		return r, err
	}
	if step.Valid {
		r.Step = &engine.Step{}
		if err := json.Unmarshal([]byte(step.String), r.Step); err != nil {
			return r, fmt.Errorf("the step of %s: %w", r.Key, err)
		}
	}
	r.Params = []byte(params)
	if result.Valid {
		r.Result = []byte(result.String)
	}
	r.NextAt = time.UnixMilli(next).UTC()
	r.CreatedAt = time.UnixMilli(created).UTC()
	r.UpdatedAt = time.UnixMilli(updated).UTC()
	return r, nil
}

func insertActions(ctx context.Context, tx *sql.Tx, runs []engine.ActionRun) error {
	for _, r := range runs {
		params := string(r.Params)
		if params == "" {
			params = "{}"
		}
		var step []byte
		if r.Step != nil {
			var err error
			if step, err = json.Marshal(r.Step); err != nil {
				return fmt.Errorf("localdb: the step of %s: %w", r.Key, err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO actions (`+actionCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.SuggestionID, r.N, r.Key, r.TraceID, r.ScoutID, r.SourceRef, r.Action, params, r.Origin, r.Mode, r.ModeSource,
			r.Phase, r.By, r.State, r.Attempts, r.LastError, r.NextAt.UnixMilli(), nullStr(string(r.Result)),
			r.CreatedAt.UnixMilli(), r.UpdatedAt.UnixMilli(), r.After, nullStr(string(step)))
		if err != nil {
			return fmt.Errorf("localdb: insert action %s: %w", r.Key, err)
		}
	}
	return nil
}

func updateAction(ctx context.Context, tx *sql.Tx, r engine.ActionRun) error {
	_, err := tx.ExecContext(ctx, `UPDATE actions SET state = ?, attempts = ?, last_error = ?, next_at = ?, result = ?, updated_at = ? WHERE key = ?`,
		r.State, r.Attempts, r.LastError, r.NextAt.UnixMilli(), nullStr(string(r.Result)), r.UpdatedAt.UnixMilli(), r.Key)
	if err != nil {
		return fmt.Errorf("localdb: update action %s: %w", r.Key, err)
	}
	return nil
}

func listActions(ctx context.Context, q queryer, where string, args ...any) ([]engine.ActionRun, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+actionCols+` FROM actions `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("localdb: actions: %w", err)
	}
	defer rows.Close()
	var out []engine.ActionRun
	for rows.Next() {
		r, err := scanAction(rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: actions: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ActionRuns returns a suggestion's actions; see engine.Store.
func (d *DB) ActionRuns(ctx context.Context, suggestionID string) ([]engine.ActionRun, error) {
	return listActions(ctx, d.read(), `WHERE suggestion_id = ? ORDER BY n`, suggestionID)
}

// ActionRunsIn returns the actions in a state; see engine.Store.
func (d *DB) ActionRunsIn(ctx context.Context, state engine.ActionState) ([]engine.ActionRun, error) {
	return listActions(ctx, d.read(), `WHERE state = ? ORDER BY id`, state)
}

// ActionsRunSince returns a scout's recent actions done or running; see
// engine.Store. Index actions_scout_recent.
func (d *DB) ActionsRunSince(ctx context.Context, scoutID string, since time.Time) ([]engine.ActionRun, error) {
	return listActions(ctx, d.read(), `WHERE scout_id = ? AND updated_at >= ? AND state IN ('done', 'running') ORDER BY updated_at, id`,
		scoutID, since.UnixMilli())
}

// stepReady holds for an action that waits for no step, or whose step
// before it is done (engine/steps.go): a later step waits in the queue,
// not due, until then.
const stepReady = `(a.after_n = 0 OR EXISTS (SELECT 1 FROM actions p WHERE p.suggestion_id = a.suggestion_id AND p.n = a.after_n AND p.state = 'done'))`

// DueActions returns queued actions due by now; see engine.Store.
func (d *DB) DueActions(ctx context.Context, now time.Time, limit int) ([]engine.ActionRun, error) {
	return listActions(ctx, d.read(), `a WHERE state = 'queued' AND next_at <= ? AND `+stepReady+` ORDER BY next_at, id LIMIT ?`, now.UnixMilli(), limit)
}

// NextActionAt returns when the next queued action is due; see
// engine.Store.
func (d *DB) NextActionAt(ctx context.Context) (time.Time, error) {
	var next sql.NullInt64
	if err := d.read().QueryRowContext(ctx, `SELECT MIN(next_at) FROM actions a WHERE state = 'queued' AND `+stepReady).Scan(&next); err != nil {
		return time.Time{}, fmt.Errorf("localdb: next action: %w", err)
	}
	if !next.Valid {
		return time.Time{}, nil
	}
	return time.UnixMilli(next.Int64).UTC(), nil
}

// UpdateActionRun changes one action; see engine.Store.
func (d *DB) UpdateActionRun(ctx context.Context, key string, change func(engine.ActionRun) (engine.ActionRun, []scouts.AuditEvent, error)) (engine.ActionRun, error) {
	var out engine.ActionRun
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, err := scanAction(tx.QueryRowContext(ctx, `SELECT `+actionCols+` FROM actions WHERE key = ?`, key))
		if errors.Is(err, sql.ErrNoRows) {
			return scouts.Errorf(scouts.ENotFound, "action %s not found", key)
		}
		if err != nil {
			return fmt.Errorf("localdb: action %s: %w", key, err)
		}
		next, audit, err := change(cur)
		if err != nil {
			return err
		}
		next.Key = cur.Key
		if err := updateAction(ctx, tx, next); err != nil {
			return err
		}
		out = next
		return insertAudit(ctx, tx, audit...)
	})
	return out, err
}

// FinishActionRun changes one action and adds others to its suggestion
// in one transaction; see engine.Store.
func (d *DB) FinishActionRun(ctx context.Context, key string, change func(engine.ActionRun, []engine.ActionRun) (engine.ActionRun, []engine.ActionRun, []scouts.AuditEvent, error)) (engine.ActionRun, error) {
	var out engine.ActionRun
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, all, err := actionWithSiblings(ctx, tx, key)
		if err != nil {
			return err
		}
		next, added, audit, err := change(cur, all)
		if err != nil {
			return err
		}
		next.Key = cur.Key
		if err := updateAction(ctx, tx, next); err != nil {
			return err
		}
		if err := insertActions(ctx, tx, added); err != nil {
			return err
		}
		out = next
		return insertAudit(ctx, tx, audit...)
	})
	return out, err
}

// actionWithSiblings reads the action key and all the actions of its
// suggestion, in order.
func actionWithSiblings(ctx context.Context, tx *sql.Tx, key string) (engine.ActionRun, []engine.ActionRun, error) {
	cur, err := scanAction(tx.QueryRowContext(ctx, `SELECT `+actionCols+` FROM actions WHERE key = ?`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return cur, nil, scouts.Errorf(scouts.ENotFound, "action %s not found", key)
	}
	if err != nil {
		return cur, nil, fmt.Errorf("localdb: action %s: %w", key, err)
	}
	all, err := listActions(ctx, tx, `WHERE suggestion_id = ? ORDER BY n`, cur.SuggestionID)
	return cur, all, err
}

// UpdateActionRuns changes actions of one suggestion in one transaction;
// see engine.Store.
func (d *DB) UpdateActionRuns(ctx context.Context, key string, change func(engine.ActionRun, []engine.ActionRun) ([]engine.ActionRun, []scouts.AuditEvent, error)) (engine.ActionRun, error) {
	var out engine.ActionRun
	err := d.tx(ctx, func(tx *sql.Tx) error {
		cur, all, err := actionWithSiblings(ctx, tx, key)
		if err != nil {
			return err
		}
		changed, audit, err := change(cur, all)
		if err != nil {
			return err
		}
		out = cur
		for _, r := range changed {
			if r.SuggestionID != cur.SuggestionID {
				return fmt.Errorf("localdb: action %s is not of suggestion %s", r.Key, cur.SuggestionID)
			}
			if err := updateAction(ctx, tx, r); err != nil {
				return err
			}
			if r.Key == key {
				out = r
			}
		}
		return insertAudit(ctx, tx, audit...)
	})
	return out, err
}

// FailingActions counts the actions that need the person's attention:
// failed for good, or waiting to retry after a failure.
func (d *DB) FailingActions(ctx context.Context) (int, error) {
	var n int
	err := d.read().QueryRowContext(ctx, `SELECT COUNT(*) FROM actions WHERE state = 'failed' OR (state = 'queued' AND last_error <> '')`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("localdb: count failing actions: %w", err)
	}
	return n, nil
}

// ListFailingActions returns the failing actions, most recently changed
// first, at most limit.
func (d *DB) ListFailingActions(ctx context.Context, limit int) ([]engine.ActionRun, error) {
	return listActions(ctx, d.read(), `WHERE state = 'failed' OR (state = 'queued' AND last_error <> '') ORDER BY updated_at DESC, id DESC LIMIT ?`, limit)
}

// Policies returns the user's action modes; see engine.Store.
func (d *DB) Policies(ctx context.Context) (actions.Policies, error) {
	p := actions.Policies{Global: map[string]actions.Mode{}, Scouts: map[string]map[string]actions.Mode{}}
	rows, err := d.read().QueryContext(ctx, `SELECT scope, action, mode FROM action_policies`)
	if err != nil {
		return p, fmt.Errorf("localdb: policies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var scope, action string
		var mode actions.Mode
		if err := rows.Scan(&scope, &action, &mode); err != nil {
			return p, fmt.Errorf("localdb: policies: %w", err)
		}
		if scope == "" {
			p.Global[action] = mode
			continue
		}
		if p.Scouts[scope] == nil {
			p.Scouts[scope] = map[string]actions.Mode{}
		}
		p.Scouts[scope][action] = mode
	}
	return p, rows.Err()
}

func setPolicies(ctx context.Context, tx *sql.Tx, changes []engine.PolicyChange) error {
	for _, c := range changes {
		var err error
		if c.Mode == "" {
			_, err = tx.ExecContext(ctx, `DELETE FROM action_policies WHERE scope = ? AND action = ?`, c.ScoutID, c.Action)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO action_policies (scope, action, mode, updated_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (scope, action) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at`,
				c.ScoutID, c.Action, c.Mode, c.At.UnixMilli())
		}
		if err != nil {
			return fmt.Errorf("localdb: set policy %s for %q: %w", c.Action, c.ScoutID, err)
		}
	}
	return nil
}

// SetPolicies sets or removes modes; see engine.Store.
func (d *DB) SetPolicies(ctx context.Context, changes []engine.PolicyChange, audit ...scouts.AuditEvent) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		if err := setPolicies(ctx, tx, changes); err != nil {
			return err
		}
		return insertAudit(ctx, tx, audit...)
	})
}

// Settings keys of the plan defaults.
const (
	settingGmailArchive = "plan.gmail_archive"
	settingGmailLabel   = "plan.gmail_label"
)

// PlanDefaults returns the user's defaults for plans; see engine.Store.
func (d *DB) PlanDefaults(ctx context.Context) (engine.PlanDefaults, error) {
	out := engine.DefaultPlanDefaults()
	if v, ok, err := d.Setting(ctx, settingGmailArchive); err != nil {
		return out, err
	} else if ok {
		out.GmailArchive, _ = strconv.ParseBool(v)
	}
	v, _, err := d.Setting(ctx, settingGmailLabel)
	out.GmailLabel = v
	return out, err
}

// SetPlanDefaults stores the user's defaults for plans; see engine.Store.
func (d *DB) SetPlanDefaults(ctx context.Context, p engine.PlanDefaults, audit ...scouts.AuditEvent) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		for k, v := range map[string]string{settingGmailArchive: strconv.FormatBool(p.GmailArchive), settingGmailLabel: p.GmailLabel} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
				return fmt.Errorf("localdb: set %s: %w", k, err)
			}
		}
		return insertAudit(ctx, tx, audit...)
	})
}
