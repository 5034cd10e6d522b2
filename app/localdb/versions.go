package localdb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ScoutVersion is one version of a scout's definition.
type ScoutVersion struct {
	ScoutID   string
	Version   int
	Document  []byte
	CreatedAt time.Time
	Actor     string
	Note      string
}

// AddScoutVersion records doc as the scout's newest version unless it is
// the same as the newest (nothing changed: no version), and makes it the
// current one. It returns the current version and whether it is new.
func (d *DB) AddScoutVersion(ctx context.Context, v ScoutVersion) (int, bool, error) {
	added := false
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var last sql.NullInt64
		var doc sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT version, document FROM scout_versions WHERE scout_id = ? ORDER BY version DESC LIMIT 1`,
			v.ScoutID).Scan(&last, &doc)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("localdb: add scout version: %w", err)
		}
		v.Version = int(last.Int64)
		if !doc.Valid || !bytes.Equal([]byte(doc.String), v.Document) {
			v.Version, added = v.Version+1, true
		}
		res, err := tx.ExecContext(ctx, `UPDATE scouts SET definition_version = ? WHERE id = ?`, v.Version, v.ScoutID)
		if err != nil {
			return fmt.Errorf("localdb: add scout version: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("scout", v.ScoutID)
		}
		if added {
			if _, err := tx.ExecContext(ctx, `INSERT INTO scout_versions (scout_id, version, document, created_at, actor, note)
				VALUES (?, ?, ?, ?, ?, ?)`, v.ScoutID, v.Version, string(v.Document), v.CreatedAt.UnixMilli(), v.Actor, v.Note); err != nil {
				return fmt.Errorf("localdb: add scout version: %w", err)
			}
		}
		return nil
	})
	return v.Version, added, err
}

// AddPastScoutVersions records versions of a scout's definition as an
// export's history gives them, with their numbers, dates and authors (an
// import recreating a scout's history). A number the scout already has
// fails the whole call: history is never rewritten.
func (d *DB) AddPastScoutVersions(ctx context.Context, scoutID string, vs []ScoutVersion) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		for _, v := range vs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO scout_versions (scout_id, version, document, created_at, actor, note)
				VALUES (?, ?, ?, ?, ?, ?)`, scoutID, v.Version, string(v.Document), v.CreatedAt.UnixMilli(), v.Actor, v.Note); err != nil {
				return fmt.Errorf("localdb: add version %d of scout %s: %w", v.Version, scoutID, err)
			}
		}
		return nil
	})
}

// ListScoutVersions returns a scout's versions, newest first.
func (d *DB) ListScoutVersions(ctx context.Context, scoutID string) ([]ScoutVersion, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT scout_id, version, document, created_at, actor, note
		FROM scout_versions WHERE scout_id = ? ORDER BY version DESC`, scoutID)
	if err != nil {
		return nil, fmt.Errorf("localdb: list scout versions: %w", err)
	}
	defer rows.Close()
	var out []ScoutVersion
	for rows.Next() {
		v, err := scanVersion(rows)
		if err != nil {
			return nil, fmt.Errorf("localdb: list scout versions: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// GetScoutVersion returns one version of a scout's definition.
func (d *DB) GetScoutVersion(ctx context.Context, scoutID string, version int) (ScoutVersion, error) {
	v, err := scanVersion(d.read().QueryRowContext(ctx, `SELECT scout_id, version, document, created_at, actor, note
		FROM scout_versions WHERE scout_id = ? AND version = ?`, scoutID, version))
	if err != nil {
		return v, rowsErr(err, "scout version", fmt.Sprintf("%s@%d", scoutID, version))
	}
	return v, nil
}

// NewestScoutVersion returns a scout's newest version (not found when it
// has none).
func (d *DB) NewestScoutVersion(ctx context.Context, scoutID string) (ScoutVersion, error) {
	v, err := scanVersion(d.read().QueryRowContext(ctx, `SELECT scout_id, version, document, created_at, actor, note
		FROM scout_versions WHERE scout_id = ? ORDER BY version DESC LIMIT 1`, scoutID))
	if err != nil {
		return v, rowsErr(err, "scout version", scoutID)
	}
	return v, nil
}

func scanVersion(row interface{ Scan(...any) error }) (ScoutVersion, error) {
	var v ScoutVersion
	var doc string
	var at int64
	if err := row.Scan(&v.ScoutID, &v.Version, &doc, &at, &v.Actor, &v.Note); err != nil {
		return v, err
	}
	v.Document, v.CreatedAt = []byte(doc), time.UnixMilli(at).UTC()
	return v, nil
}

// ScoutDefinitionState is what a scout's row says of its definition.
type ScoutDefinitionState struct {
	Version   int
	ManagedBy string
}

// ScoutDefinitionStates returns every scout's current definition version
// and who manages it, by scout id (deleted scouts included: a file that
// named one is matched to it).
func (d *DB) ScoutDefinitionStates(ctx context.Context) (map[string]ScoutDefinitionState, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT id, definition_version, managed_by FROM scouts WHERE deleted_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("localdb: scout definitions: %w", err)
	}
	defer rows.Close()
	out := map[string]ScoutDefinitionState{}
	for rows.Next() {
		var id string
		var st ScoutDefinitionState
		if err := rows.Scan(&id, &st.Version, &st.ManagedBy); err != nil {
			return nil, fmt.Errorf("localdb: scout definitions: %w", err)
		}
		out[id] = st
	}
	return out, rows.Err()
}

// SetScoutManagedBy records who manages a scout's definition ("" for
// nobody: the API and the window edit it).
func (d *DB) SetScoutManagedBy(ctx context.Context, scoutID, by string) error {
	return d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE scouts SET managed_by = ? WHERE id = ? AND deleted_at IS NULL`, by, scoutID)
		if err != nil {
			return fmt.Errorf("localdb: set managed by: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("scout", scoutID)
		}
		return nil
	})
}

// SuggestionDefinitionVersion is the version of its scout's definition
// that made a suggestion (0 when made before versions existed).
func (d *DB) SuggestionDefinitionVersion(ctx context.Context, suggestionID string) (int, error) {
	var v sql.NullInt64
	err := d.read().QueryRowContext(ctx, `SELECT definition_version FROM suggestions WHERE id = ?`, suggestionID).Scan(&v)
	if err != nil {
		return 0, rowsErr(err, "suggestion", suggestionID)
	}
	return int(v.Int64), nil
}
