package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// AuditRevived is audited when a person brings an expired suggestion back
// to pending.
const AuditRevived = "suggestion.revived"

// ReviveSuggestion brings an expired suggestion back to pending with a new
// deadline, audited. Any other status is a conflict: a decision stands.
func (d *DB) ReviveSuggestion(ctx context.Context, id, by string, at, expires time.Time) (scouts.Suggestion, error) {
	var sug scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sug, err = getSuggestion(ctx, tx, id)
		if err != nil {
			return err
		}
		if sug.Status != scouts.StatusExpired {
			return scouts.Errorf(scouts.EConflict, "suggestion %s is %s: only an expired suggestion can be brought back", id, sug.Status)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET status = 'pending', resolved_at = NULL, expires_at = ? WHERE id = ? AND status = 'expired'`,
			expires.UnixMilli(), id); err != nil {
			return fmt.Errorf("localdb: revive: %w", err)
		}
		sug.Status, sug.ResolvedAt, sug.ExpiresAt = scouts.StatusPending, time.Time{}, expires
		return insertAudit(ctx, tx, scouts.AuditEvent{TraceID: sug.TraceID, Stage: scouts.StageDecision, Type: AuditRevived,
			Outcome: scouts.OutcomeOK, Summary: "Brought back to pending after it expired; it now expires " + expires.UTC().Format(time.RFC3339),
			Refs: map[string]string{"scout_id": sug.ScoutID, "suggestion_id": sug.ID, "actor": by}, At: at})
	})
	return sug, err
}

// ExpiryReasons returns why each of the suggestions (by trace) expired: the
// summary of its latest suggestion.expired audit event.
func (d *DB) ExpiryReasons(ctx context.Context, traces []string) (map[string]string, error) {
	out := make(map[string]string, len(traces))
	const chunk = 500
	for len(traces) > 0 {
		n := min(chunk, len(traces))
		part := traces[:n]
		traces = traces[n:]
		args := make([]any, 0, n+1)
		args = append(args, scouts.AuditExpired)
		for _, t := range part {
			args = append(args, t)
		}
		rows, err := d.read().QueryContext(ctx, `SELECT trace_id, summary FROM audit WHERE type = ? AND trace_id IN (?`+
			strings.Repeat(",?", n-1)+`) ORDER BY id`, args...)
		if err != nil {
			return nil, fmt.Errorf("localdb: expiry reasons: %w", err)
		}
		for rows.Next() {
			var t, s string
			if err := rows.Scan(&t, &s); err != nil {
				rows.Close()
				return nil, fmt.Errorf("localdb: expiry reasons: %w", err)
			}
			out[t] = s // later events win
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("localdb: expiry reasons: %w", err)
		}
	}
	return out, nil
}
