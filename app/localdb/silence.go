package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/learn"
)

// SettleSilent settles the cards silence confirms; see engine.Store. A card
// a rule of the person's put in its lane is left alone: the rule is their
// standing decision, and teaching the learner from it would make the
// learner repeat the rule after they remove it.
func (d *DB) SettleSilent(ctx context.Context, scoutID string, before, at time.Time, limit int,
	audit func(scouts.Suggestion) []scouts.AuditEvent) ([]scouts.Suggestion, error) {
	var out []scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if out, err = querySuggestions(ctx, tx, `SELECT `+suggestionReadCols+` FROM suggestions INDEXED BY suggestions_unsettled
			WHERE scout_id = ? AND status = 'pending' AND lane <> 'inbox' AND settled_at IS NULL AND opened_at IS NULL
			AND created_at <= ? AND rescued = '' AND COALESCE(json_extract(assessment, '$.rule_id'), '') = ''
			ORDER BY created_at LIMIT ?`, scoutID, before.UnixMilli(), limit); err != nil {
			return err
		}
		for i := range out {
			s := &out[i]
			if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET silence = ?, settled_at = ? WHERE id = ?`, s.Lane, at.UnixMilli(), s.ID); err != nil {
				return err
			}
			s.Silence, s.SettledAt = s.Lane, at
			if err := d.teach(ctx, tx, *s, at); err != nil {
				return err
			}
			if err := insertAudit(ctx, tx, audit(*s)...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("localdb: settle silent cards: %w", err)
	}
	return out, nil
}

// MarkOpened records the first time the person read a card; see
// engine.Store.
func (d *DB) MarkOpened(ctx context.Context, id string, at time.Time) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE suggestions SET opened_at = COALESCE(opened_at, ?) WHERE id = ?`, at.UnixMilli(), id)
		if err != nil {
			return fmt.Errorf("localdb: mark opened: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return scouts.Errorf(scouts.ENotFound, "no suggestion %s", id)
		}
		return nil
	})
}

// sentRow is the id of the learner's row for an address the person wrote
// to from a scout's mailbox.
func sentRow(scoutID, address string) string { return "sent:" + scoutID + ":" + address }

// TeachSentTo learns from mail the person sent; see engine.Store.
func (d *DB) TeachSentTo(ctx context.Context, scoutID, address string, hashes []uint64, at time.Time,
	audit func(lifted []scouts.Suggestion) []scouts.AuditEvent) ([]scouts.Suggestion, error) {
	var lifted []scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		lifted = lifted[:0]
		res, err := tx.ExecContext(ctx, `INSERT INTO sent_to (scout_id, address, first_at, last_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (scout_id, address) DO UPDATE SET last_at = MAX(last_at, excluded.last_at)`, scoutID, address, at.UnixMilli(), at.UnixMilli())
		if err != nil {
			return err
		}
		var first int64
		if err := tx.QueryRowContext(ctx, `SELECT first_at FROM sent_to WHERE scout_id = ? AND address = ?`, scoutID, address).Scan(&first); err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 || first != at.UnixMilli() {
			return nil // known: it taught once already
		}
		row := sentRow(scoutID, address)
		if err := insertFeatures(ctx, tx, row, hashes, nil); err != nil {
			return err
		}
		// As a bring-back from Screened and from Spam would: wanted, and
		// not spam.
		if err := d.teachRow(ctx, tx, scoutID, row, learn.Label{Approve: true, Ham: true}, 1, at); err != nil {
			return err
		}
		// Out of Screened and Spam; a snoozed card stays where the person
		// put it.
		if lifted, err = querySuggestions(ctx, tx, `SELECT `+suggestionReadCols+` FROM suggestions
			WHERE scout_id = ? AND status = 'pending' AND lane IN ('screened', 'spam') AND `+fromAddress,
			scoutID, address, addressInName(address)); err != nil {
			return err
		}
		if err := d.toInbox(ctx, tx, lifted, at); err != nil {
			return err
		}
		return insertAudit(ctx, tx, audit(lifted)...)
	})
	if err != nil {
		return nil, fmt.Errorf("localdb: learn from sent mail: %w", err)
	}
	return lifted, nil
}

// ShowAnswered moves the cards held only because nobody answered their
// sender to the inbox; see engine.Store.
func (d *DB) ShowAnswered(ctx context.Context, scoutID, address string, at time.Time,
	audit func(moved []scouts.Suggestion) []scouts.AuditEvent) ([]scouts.Suggestion, error) {
	var moved []scouts.Suggestion
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		// The partial index holds only the held cards: without it the
		// lookup reads every screened card of the mailbox on each approval.
		if moved, err = querySuggestions(ctx, tx, `SELECT `+suggestionReadCols+` FROM suggestions INDEXED BY suggestions_unanswered
			WHERE scout_id = ? AND status = 'pending' AND lane = 'screened' AND json_extract(assessment, '$.unanswered') = 1 AND `+fromAddress,
			scoutID, address, addressInName(address)); err != nil {
			return err
		}
		if err := d.toInbox(ctx, tx, moved, at); err != nil {
			return err
		}
		if len(moved) == 0 {
			return nil
		}
		return insertAudit(ctx, tx, audit(moved)...)
	})
	if err != nil {
		return nil, fmt.Errorf("localdb: show an answered sender's mail: %w", err)
	}
	return moved, nil
}

// fromAddress matches a card whose sender is an address (lower case), bare
// or in angle brackets after a name: its arguments are the address and
// addressInName of it.
const fromAddress = `(lower(sender) = ? OR lower(sender) LIKE ? ESCAPE '\')`

// addressInName is fromAddress's pattern for "Name <address>".
func addressInName(address string) string { return "%<" + likeEscape(address) + ">" }

// toInbox moves pending cards to the inbox without deciding them, and
// takes back what silence taught of each (the lane it confirmed is left).
// The cards are updated to their new lane.
func (d *DB) toInbox(ctx context.Context, tx *sql.Tx, cards []scouts.Suggestion, at time.Time) error {
	for i := range cards {
		s := &cards[i]
		if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET lane = 'inbox' WHERE id = ?`, s.ID); err != nil {
			return err
		}
		s.Lane = scouts.LaneInbox
		if err := d.teach(ctx, tx, *s, at); err != nil {
			return err
		}
	}
	return nil
}

// likeEscape escapes LIKE's wildcards in s (with \).
func likeEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c == '_' || c == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}
