package localdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
	"github.com/scouts-hq/scouts/store"
)

const suggestionCols = `id, scout_id, source_type, source_ref, trace_id, title, excerpt, sender, path, url,
	proposed_kind, reason, payload, status, created_at, expires_at, resolved_at, resolved_kind, resolved_entity_id,
	lane, assessment, rescued, resolved_by`

// suggestionReadCols are what a read returns: the columns written on
// insert and those only later steps set (implicit feedback, migration
// 0012) and snooze (migration 0015).
const suggestionReadCols = suggestionCols + `, opened_at, silence, settled_at, snoozed_until, returned_at`

func scanSuggestion(row interface{ Scan(...any) error }) (scouts.Suggestion, error) {
	var s scouts.Suggestion
	var payload, rkind, rid, assessment sql.NullString
	var created, expires int64
	var resolved, opened, settled, snoozed, returned sql.NullInt64
	err := row.Scan(&s.ID, &s.ScoutID, &s.SourceType, &s.SourceRef, &s.TraceID, &s.Title, &s.Excerpt, &s.Sender,
		&s.Path, &s.URL, &s.ProposedKind, &s.Reason, &payload, &s.Status, &created, &expires, &resolved, &rkind, &rid,
		&s.Lane, &assessment, &s.Rescued, &s.ResolvedBy, &opened, &s.Silence, &settled, &snoozed, &returned)
	if err != nil {
		return s, err
	}
	if assessment.Valid {
		if err := json.Unmarshal([]byte(assessment.String), &s.Assessment); err != nil {
			return s, fmt.Errorf("assessment of %s: %w", s.ID, err)
		}
	}
	if payload.Valid {
		s.Payload = []byte(payload.String)
	}
	s.CreatedAt = time.UnixMilli(created).UTC()
	s.ExpiresAt = time.UnixMilli(expires).UTC()
	s.ResolvedAt = store.FromMillis(resolved)
	s.OpenedAt = store.FromMillis(opened)
	s.SettledAt = store.FromMillis(settled)
	s.SnoozedUntil = store.FromMillis(snoozed)
	s.ReturnedAt = store.FromMillis(returned)
	s.ResolvedKind = scouts.EntityKind(rkind.String)
	s.ResolvedEntityID = rid.String
	return s, nil
}

// KnownRefs reports which refs already have a suggestion in the scout.
func (d *DB) KnownRefs(ctx context.Context, scoutID string, refs []string) (map[string]bool, error) {
	known := make(map[string]bool, len(refs))
	// SQLite's default limit is 32766 variables; stay far below it.
	const chunk = 500
	for len(refs) > 0 {
		n := min(chunk, len(refs))
		part := refs[:n]
		refs = refs[n:]
		args := make([]any, 0, n+1)
		args = append(args, scoutID)
		for _, r := range part {
			args = append(args, r)
		}
		q := `SELECT source_ref FROM suggestions WHERE scout_id = ? AND source_ref IN (?` + strings.Repeat(",?", n-1) + `)`
		rows, err := d.read().QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("localdb: known refs: %w", err)
		}
		for rows.Next() {
			var r string
			if err := rows.Scan(&r); err != nil {
				rows.Close()
				return nil, fmt.Errorf("localdb: known refs: %w", err)
			}
			known[r] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("localdb: known refs: %w", err)
		}
	}
	return known, nil
}

// RecordItems stores new items; see engine.Store.
func (d *DB) RecordItems(ctx context.Context, recs []engine.ItemRecord, loose []scouts.AuditEvent) ([]engine.ItemRecord, error) {
	var inserted []engine.ItemRecord
	err := d.tx(ctx, func(tx *sql.Tx) error {
		// A page runs the same inserts for each item: they are prepared
		// once (the driver keeps no statements), and the page's audit
		// events are written together at the end, in the order they would
		// have been one by one.
		w := newStmtCache(tx, d.shared)
		defer w.Close()
		var audit []scouts.AuditEvent
		inserted = inserted[:0]
		for _, rec := range recs {
			ok, err := insertSuggestion(ctx, w, rec.Suggestion)
			if err != nil {
				return err
			}
			if !ok {
				continue // this (scout, source ref) is already known
			}
			if err := insertFeatures(ctx, w, rec.Suggestion.ID, rec.Features, rec.Participants); err != nil {
				return err
			}
			if err := countSeen(ctx, w, rec.Suggestion.ScoutID, rec.Identities); err != nil {
				return err
			}
			if rec.Entity != nil {
				if err := insertEntity(ctx, w, *rec.Entity); err != nil {
					return err
				}
			}
			if err := insertActions(ctx, tx, rec.Actions); err != nil {
				return err
			}
			audit = append(audit, rec.Audit...)
			inserted = append(inserted, rec)
		}
		return insertAudit(ctx, w, append(audit, loose...)...)
	})
	if err != nil {
		return nil, fmt.Errorf("localdb: record items: %w", err)
	}
	return inserted, nil
}

// suggestionInsert sets the definition version the suggestion came from
// itself: the trigger of migration 0007 that did so updated the row just
// inserted (BenchmarkRecordItems, alternated runs: 17,000 → 19,100
// items/s without it firing), and even idle it cost every insert a
// statement journal, so 0011 dropped it. Every insert of a suggestion
// goes through here.
const suggestionInsert = `INSERT INTO suggestions (` + suggestionCols + `, score, definition_version)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
			(SELECT NULLIF(definition_version, 0) FROM scouts WHERE id = ?))
		ON CONFLICT (scout_id, source_ref) DO NOTHING`

func insertSuggestion(ctx context.Context, tx execer, s scouts.Suggestion) (bool, error) {
	var payload any
	if len(s.Payload) > 0 {
		payload = string(s.Payload)
	}
	lane := s.Lane
	if lane == "" {
		lane = scouts.LaneInbox
	}
	assessment, err := json.Marshal(s.Assessment)
	if err != nil {
		return false, fmt.Errorf("insert suggestion: %w", err)
	}
	var score any
	if s.Assessment.Approve >= 0 && s.Assessment.Lane != "" {
		score = s.Assessment.Approve
	}
	res, err := tx.ExecContext(ctx, suggestionInsert,
		s.ID, s.ScoutID, s.SourceType, s.SourceRef, s.TraceID, s.Title, s.Excerpt, s.Sender, s.Path, s.URL,
		s.ProposedKind, s.Reason, payload, s.Status, s.CreatedAt.UnixMilli(), s.ExpiresAt.UnixMilli(),
		store.Millis(s.ResolvedAt), nullStr(string(s.ResolvedKind)), nullStr(s.ResolvedEntityID),
		lane, string(assessment), s.Rescued, s.ResolvedBy, score, s.ScoutID)
	if err != nil {
		return false, fmt.Errorf("insert suggestion: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// GetSuggestion returns one suggestion.
func (d *DB) GetSuggestion(ctx context.Context, id string) (scouts.Suggestion, error) {
	return getSuggestion(ctx, d.read(), id)
}

func getSuggestion(ctx context.Context, q queryer, id string) (scouts.Suggestion, error) {
	s, err := scanSuggestion(q.QueryRowContext(ctx, `SELECT `+suggestionReadCols+` FROM suggestions WHERE id = ?`, id))
	if err != nil {
		return s, rowsErr(err, "suggestion", id)
	}
	return s, nil
}

// SuggestionFilter selects suggestions to list.
type SuggestionFilter struct {
	Status  scouts.Status // empty: all
	Lane    scouts.Lane   // empty: all
	ScoutID string
	// Likely orders by how likely the person is to approve (the learner's
	// score at arrival, unknown scores last), then by arrival. Paging with
	// After is by arrival only, so Likely ignores After.
	Likely  bool
	TraceID string
	// After continues a listing after this suggestion (the last one of the
	// previous page), for paging.
	After string
	Limit int // default 100, at most 1000
	// Newest lists newest first; the default is oldest first, the order in
	// which a queue is worked through.
	Newest bool
}

// ListSuggestions returns suggestions matching f.
func (d *DB) ListSuggestions(ctx context.Context, f SuggestionFilter) ([]scouts.Suggestion, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.Lane != "" {
		where = append(where, "lane = ?")
		args = append(args, f.Lane)
	}
	if f.ScoutID != "" {
		where = append(where, "scout_id = ?")
		args = append(args, f.ScoutID)
	}
	if f.TraceID != "" {
		where = append(where, "trace_id = ?")
		args = append(args, f.TraceID)
	}
	order := "ASC"
	if f.Newest {
		order = "DESC"
	}
	// Snoozed cards that came back are at the top of the inbox, on its
	// first page; later pages leave them out, so none is listed twice.
	returnedFirst := f.Lane == scouts.LaneInbox && !f.Likely
	if returnedFirst && f.After != "" {
		where = append(where, "returned_at IS NULL")
	}
	if f.After != "" {
		// Rows are ordered by insertion (rowid): detection order, stable
		// even for items detected within the same millisecond.
		cmp := ">"
		if f.Newest {
			cmp = "<"
		}
		where = append(where, "rowid "+cmp+" COALESCE((SELECT rowid FROM suggestions WHERE id = ?), 0)")
		args = append(args, f.After)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	q := `SELECT ` + suggestionReadCols + ` FROM suggestions`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	if f.Likely {
		q += fmt.Sprintf(` ORDER BY score IS NULL, score DESC, rowid %s LIMIT %d`, order, limit)
	} else if returnedFirst {
		q += fmt.Sprintf(` ORDER BY returned_at IS NULL, returned_at DESC, rowid %s LIMIT %d`, order, limit)
	} else {
		q += fmt.Sprintf(` ORDER BY rowid %s LIMIT %d`, order, limit)
	}
	rows, err := d.read().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("localdb: list suggestions: %w", err)
	}
	defer rows.Close()
	out := []scouts.Suggestion{}
	for rows.Next() {
		s, err := scanSuggestion(rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: list suggestions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// CountSuggestions returns how many suggestions have each status.
func (d *DB) CountSuggestions(ctx context.Context) (map[scouts.Status]int, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT status, COUNT(*) FROM suggestions GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("localdb: count suggestions: %w", err)
	}
	defer rows.Close()
	out := map[scouts.Status]int{}
	for rows.Next() {
		var s scouts.Status
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, fmt.Errorf("localdb: count suggestions: %w", err)
		}
		out[s] = n
	}
	return out, rows.Err()
}

// CountPendingByLane returns how many pending suggestions wait in each lane.
func (d *DB) CountPendingByLane(ctx context.Context) (map[scouts.Lane]int, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT lane, COUNT(*) FROM suggestions WHERE status = 'pending' GROUP BY lane`)
	if err != nil {
		return nil, fmt.Errorf("localdb: count lanes: %w", err)
	}
	defer rows.Close()
	out := map[scouts.Lane]int{scouts.LaneInbox: 0, scouts.LaneScreened: 0, scouts.LaneSpam: 0, scouts.LaneSnoozed: 0}
	for rows.Next() {
		var l scouts.Lane
		var n int
		if err := rows.Scan(&l, &n); err != nil {
			return nil, fmt.Errorf("localdb: count lanes: %w", err)
		}
		out[l] = n
	}
	return out, rows.Err()
}

// ApproveSuggestion approves a suggestion; see engine.Store.
func (d *DB) ApproveSuggestion(ctx context.Context, id string, kind scouts.EntityKind, by string, at time.Time,
	build func(scouts.Suggestion, []engine.ActionRun) (engine.ApprovalRecord, error)) (scouts.Suggestion, scouts.Entity, bool, error) {
	var sug scouts.Suggestion
	var ent scouts.Entity
	var created bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status == scouts.StatusApproved && sug.ResolvedKind == kind {
			ent, err = getEntity(ctx, tx, kind, sug.ResolvedEntityID)
			return err
		}
		if sug.Status == scouts.StatusApproved {
			return scouts.Errorf(scouts.EConflict, "suggestion %s was already approved as %s", id, sug.ResolvedKind.WithArticle())
		}
		if err := sug.Decide(scouts.StatusApproved); err != nil {
			return err
		}
		existing, err := listActions(ctx, tx, `WHERE suggestion_id = ? ORDER BY n`, id)
		if err != nil {
			return err
		}
		rec, err := build(sug, existing)
		if err != nil {
			return err
		}
		ent = rec.Entity
		if err := insertEntity(ctx, tx, ent); err != nil {
			return err
		}
		// The plan's remote actions enter the outbox in the decision's
		// transaction: a crash keeps both or neither.
		if err := insertActions(ctx, tx, rec.Actions); err != nil {
			return err
		}
		if err := setPolicies(ctx, tx, rec.Policies); err != nil {
			return err
		}
		sug.Status = scouts.StatusApproved
		sug.ResolvedAt = at
		sug.ResolvedKind = kind
		sug.ResolvedEntityID = ent.ID
		sug.ResolvedBy = by
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET status = 'approved', resolved_at = ?, resolved_kind = ?, resolved_entity_id = ?,
			resolved_by = ? WHERE id = ? AND status = 'pending'`, at.UnixMilli(), kind, ent.ID, by, id); err != nil {
			return fmt.Errorf("localdb: approve: %w", err)
		}
		if err := d.teach(ctx, tx, sug, at); err != nil {
			return err
		}
		created = true
		return insertAudit(ctx, tx, rec.Audit...)
	})
	return sug, ent, created, err
}

// RejectSuggestion rejects a suggestion; see engine.Store.
func (d *DB) RejectSuggestion(ctx context.Context, id, by string, at time.Time, audit func(scouts.Suggestion) []scouts.AuditEvent) (scouts.Suggestion, bool, error) {
	var sug scouts.Suggestion
	var changed bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status == scouts.StatusRejected {
			return nil
		}
		if err := sug.Decide(scouts.StatusRejected); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET status = 'rejected', resolved_at = ?, resolved_by = ? WHERE id = ? AND status = 'pending'`,
			at.UnixMilli(), by, id); err != nil {
			return fmt.Errorf("localdb: reject: %w", err)
		}
		sug.Status = scouts.StatusRejected
		sug.ResolvedAt = at
		sug.ResolvedBy = by
		if err := d.teach(ctx, tx, sug, at); err != nil {
			return err
		}
		changed = true
		return insertAudit(ctx, tx, audit(sug)...)
	})
	return sug, changed, err
}

// UndoDecision puts a decided suggestion back to pending; see engine.Store.
func (d *DB) UndoDecision(ctx context.Context, id string, check func(scouts.Suggestion) error,
	undo func(engine.UndoState) engine.UndoRecord) (scouts.Suggestion, *scouts.Entity, error) {
	var sug scouts.Suggestion
	var deleted *scouts.Entity
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := check(sug); err != nil {
			return err
		}
		runs, err := listActions(ctx, tx, `WHERE suggestion_id = ? ORDER BY n`, id)
		if err != nil {
			return err
		}
		allowed, err := alwaysAllowed(ctx, tx, sug)
		if err != nil {
			return err
		}
		rec := undo(engine.UndoState{Suggestion: sug, Runs: runs, AlwaysAllowed: allowed})
		for _, r := range rec.Actions {
			if err := updateAction(ctx, tx, r); err != nil {
				return err
			}
		}
		if err := setPolicies(ctx, tx, rec.Policies); err != nil {
			return err
		}
		if sug.Status == scouts.StatusApproved && sug.ResolvedEntityID != "" {
			t, err := tableFor(sug.ResolvedKind)
			if err != nil {
				return err
			}
			e, err := getEntity(ctx, tx, sug.ResolvedKind, sug.ResolvedEntityID)
			if err == nil {
				deleted = &e
				if _, err := tx.ExecContext(ctx, `DELETE FROM `+t.name+` WHERE id = ?`, e.ID); err != nil {
					return fmt.Errorf("localdb: undo: delete entity: %w", err)
				}
			} else if scouts.ErrorCode(err) != scouts.ENotFound {
				return err
			}
		}
		// A card marked as spam goes back to where it was before.
		lane := sug.Lane
		if sug.Status == scouts.StatusRejected && sug.Lane == scouts.LaneSpam {
			lane = sug.Assessment.Lane
			if lane == "" || sug.Rescued != "" {
				lane = scouts.LaneInbox
			}
		}
		// The person has had the card in front of them: pending again, it
		// never teaches by silence (opened_at).
		opened := sug.OpenedAt
		if opened.IsZero() {
			opened = sug.ResolvedAt
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET status = 'pending', resolved_at = NULL, resolved_kind = NULL,
			resolved_entity_id = NULL, resolved_by = '', lane = ?, opened_at = ? WHERE id = ?`, lane, store.Millis(opened), id); err != nil {
			return fmt.Errorf("localdb: undo: %w", err)
		}
		sug.Status = scouts.StatusPending
		sug.ResolvedAt, sug.ResolvedKind, sug.ResolvedEntityID, sug.ResolvedBy, sug.Lane = time.Time{}, "", "", "", lane
		sug.OpenedAt = opened
		if err := d.teach(ctx, tx, sug, time.Now()); err != nil {
			return err
		}
		return insertAudit(ctx, tx, rec.Audit...)
	})
	return sug, deleted, err
}

// alwaysAllowed reads the overrides an approval wrote with "approve and
// always allow" from its trail (the policy.changed entries it recorded
// with the decision, in the same transaction), each with the override as
// it is now.
func alwaysAllowed(ctx context.Context, tx *sql.Tx, sug scouts.Suggestion) ([]engine.AlwaysAllowed, error) {
	if sug.Status != scouts.StatusApproved {
		return nil, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT json_extract(refs, '$.action'), COALESCE(json_extract(refs, '$.previous_mode'), ''),
		COALESCE(json_extract(refs, '$.previous_source'), '') FROM audit
		WHERE trace_id = ? AND type = ? AND at = ? AND json_extract(refs, '$.suggestion_id') = ? AND outcome = ? ORDER BY id`,
		sug.TraceID, scouts.AuditPolicyChanged, sug.ResolvedAt.UnixMilli(), sug.ID, scouts.OutcomeOK)
	if err != nil {
		return nil, fmt.Errorf("localdb: undo: read the overrides the approval wrote: %w", err)
	}
	var out []engine.AlwaysAllowed
	for rows.Next() {
		var a engine.AlwaysAllowed
		if err := rows.Scan(&a.Action, &a.PreviousMode, &a.PreviousSource); err != nil {
			rows.Close()
			return nil, fmt.Errorf("localdb: undo: read the overrides the approval wrote: %w", err)
		}
		out = append(out, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("localdb: undo: read the overrides the approval wrote: %w", err)
	}
	for i := range out {
		var at int64
		err := tx.QueryRowContext(ctx, `SELECT mode, updated_at FROM action_policies WHERE scope = ? AND action = ?`, sug.ScoutID, out[i].Action).
			Scan(&out[i].Mode, &at)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("localdb: undo: read the override of %s: %w", out[i].Action, err)
		default:
			out[i].UpdatedAt = time.UnixMilli(at)
		}
	}
	return out, nil
}

// MarkSpam rejects a pending suggestion as spam; see engine.Store.
func (d *DB) MarkSpam(ctx context.Context, id string, at time.Time, audit func(scouts.Suggestion) []scouts.AuditEvent) (scouts.Suggestion, bool, error) {
	var sug scouts.Suggestion
	var changed bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status == scouts.StatusRejected && sug.Lane == scouts.LaneSpam {
			return nil
		}
		if err := sug.Decide(scouts.StatusRejected); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET status = 'rejected', lane = 'spam', resolved_at = ?, resolved_by = 'user'
			WHERE id = ? AND status = 'pending'`, at.UnixMilli(), id); err != nil {
			return fmt.Errorf("localdb: mark spam: %w", err)
		}
		sug.Status, sug.Lane, sug.ResolvedAt, sug.ResolvedBy = scouts.StatusRejected, scouts.LaneSpam, at, "user"
		if err := d.teach(ctx, tx, sug, at); err != nil {
			return err
		}
		changed = true
		return insertAudit(ctx, tx, audit(sug)...)
	})
	return sug, changed, err
}

// MoveLane moves a pending suggestion to another lane; see engine.Store.
func (d *DB) MoveLane(ctx context.Context, id string, to scouts.Lane, rescue scouts.Rescue, at time.Time,
	build func(scouts.Suggestion, []engine.ActionRun) engine.LaneRecord) (scouts.Suggestion, bool, error) {
	var sug scouts.Suggestion
	var changed bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Lane == to {
			return nil
		}
		if sug.Status != scouts.StatusPending {
			return scouts.Errorf(scouts.EConflict, "suggestion %s is already %s; only pending cards move between lanes", id, sug.Status)
		}
		if sug.Lane == scouts.LaneSnoozed {
			// Bringing back would teach; a snoozed card is unsnoozed.
			return scouts.Errorf(scouts.EConflict, "suggestion %s is snoozed until %s; unsnooze it instead", id, sug.SnoozedUntil.Format(time.RFC3339))
		}
		existing, err := listActions(ctx, tx, `WHERE suggestion_id = ? ORDER BY n`, id)
		if err != nil {
			return err
		}
		rec := build(sug, existing)
		// Queued with the move: a crash keeps both or neither.
		if err := insertActions(ctx, tx, rec.Actions); err != nil {
			return err
		}
		if rescue == scouts.RescueNone {
			rescue = sug.Rescued
		}
		// Only a person moves a card between lanes: it has been seen, and
		// never teaches by silence (opened_at).
		if sug.OpenedAt.IsZero() {
			sug.OpenedAt = at
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = ?, rescued = ?, opened_at = ?, returned_at = NULL WHERE id = ? AND status = 'pending'`,
			to, rescue, sug.OpenedAt.UnixMilli(), id); err != nil {
			return fmt.Errorf("localdb: move lane: %w", err)
		}
		sug.Lane, sug.Rescued = to, rescue
		if err := d.teach(ctx, tx, sug, at); err != nil {
			return err
		}
		changed = true
		return insertAudit(ctx, tx, rec.Audit...)
	})
	return sug, changed, err
}

// SuggestionByRef returns the suggestion of an item, by scout and source ref.
func (d *DB) SuggestionByRef(ctx context.Context, scoutID, ref string) (scouts.Suggestion, error) {
	s, err := scanSuggestion(d.read().QueryRowContext(ctx, `SELECT `+suggestionReadCols+` FROM suggestions WHERE scout_id = ? AND source_ref = ?`, scoutID, ref))
	if err != nil {
		return s, rowsErr(err, "suggestion for", ref)
	}
	return s, nil
}

// ExpireSuggestion expires one pending suggestion now (its source said it
// expired, or withdrew it) with the given audit summary and actor; a
// decided suggestion is left as it is and changed=false.
func (d *DB) ExpireSuggestion(ctx context.Context, id string, at time.Time, actor, summary string) (scouts.Suggestion, bool, error) {
	var sug scouts.Suggestion
	var changed bool
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil || sug.Status != scouts.StatusPending {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET status = 'expired', resolved_at = ? WHERE id = ? AND status = 'pending'`, at.UnixMilli(), id); err != nil {
			return fmt.Errorf("localdb: expire: %w", err)
		}
		sug.Status, sug.ResolvedAt, changed = scouts.StatusExpired, at, true
		return insertAudit(ctx, tx, scouts.AuditEvent{TraceID: sug.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditExpired,
			Outcome: scouts.OutcomeOK, Summary: summary, Refs: map[string]string{"scout_id": sug.ScoutID, "suggestion_id": sug.ID, "actor": actor}, At: at})
	})
	return sug, changed, err
}

// ExpireSuggestions expires overdue pending suggestions; see engine.Store.
func (d *DB) ExpireSuggestions(ctx context.Context, now time.Time) ([]scouts.Suggestion, error) {
	var out []scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if out, err = querySuggestions(ctx, tx, `SELECT `+suggestionReadCols+` FROM suggestions WHERE status = 'pending' AND expires_at <= ? AND lane NOT IN ('snoozed', 'held')`, now.UnixMilli()); err != nil {
			return err
		}
		for i := range out {
			s := &out[i]
			if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET status = 'expired', resolved_at = ? WHERE id = ?`, now.UnixMilli(), s.ID); err != nil {
				return err
			}
			s.Status = scouts.StatusExpired
			s.ResolvedAt = now
			if err := insertAudit(ctx, tx, scouts.AuditEvent{TraceID: s.TraceID, Stage: scouts.StageDecision, Type: scouts.AuditExpired,
				Outcome: scouts.OutcomeOK, Summary: "Expired: nobody decided before " + s.ExpiresAt.Format(time.RFC3339),
				Refs: map[string]string{"scout_id": s.ScoutID, "suggestion_id": s.ID, "actor": "sweeper"}, At: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("localdb: expire suggestions: %w", err)
	}
	return out, nil
}

// querySuggestions reads the cards a query selects (suggestionReadCols)
// inside tx, for the writes that decide on a set of cards in one
// transaction (expiry, silence).
func querySuggestions(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]scouts.Suggestion, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []scouts.Suggestion
	for rows.Next() {
		s, err := scanSuggestion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
