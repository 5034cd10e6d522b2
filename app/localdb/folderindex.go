package localdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/scouts-hq/scouts/connectors/directory/dirindex"
)

// FolderIndex returns the persistent cursor of one folder scout.
func (d *DB) FolderIndex(scoutID string) dirindex.Index {
	return &folderIndex{db: d, scoutID: scoutID}
}

type folderIndex struct {
	db      *DB
	scoutID string
}

func (x *folderIndex) LoadDir(ctx context.Context, dir string) (map[string]dirindex.Entry, error) {
	rows, err := x.db.read().QueryContext(ctx, `SELECT name, type, size, mtime_ns, hash FROM folder_entries WHERE scout_id = ? AND dir = ?`, x.scoutID, dir)
	if err != nil {
		return nil, fmt.Errorf("localdb: load folder index: %w", err)
	}
	defer rows.Close()
	out := map[string]dirindex.Entry{}
	for rows.Next() {
		var e dirindex.Entry
		if err := rows.Scan(&e.Name, &e.Type, &e.Size, &e.MtimeNs, &e.Hash); err != nil {
			return nil, fmt.Errorf("localdb: load folder index: %w", err)
		}
		out[e.Name] = e
	}
	return out, rows.Err()
}

func (x *folderIndex) Apply(ctx context.Context, b dirindex.IndexBatch) error {
	if len(b.Put) == 0 && len(b.Delete) == 0 && len(b.DeleteTrees) == 0 {
		return nil
	}
	return x.db.tx(ctx, func(tx *sql.Tx) error {
		for _, dir := range b.DeleteTrees {
			// Everything in dir, and in dir's subdirectories: names that
			// start with "dir/" sort between "dir/" and "dir0" ('0' follows
			// '/' in byte order).
			var err error
			if dir == "" {
				_, err = tx.ExecContext(ctx, `DELETE FROM folder_entries WHERE scout_id = ?`, x.scoutID)
			} else {
				_, err = tx.ExecContext(ctx, `DELETE FROM folder_entries WHERE scout_id = ? AND (dir = ? OR (dir >= ? AND dir < ?))`,
					x.scoutID, dir, dir+"/", dir+"0")
			}
			if err != nil {
				return fmt.Errorf("localdb: folder index delete tree: %w", err)
			}
		}
		if len(b.Delete) > 0 {
			del, err := tx.PrepareContext(ctx, `DELETE FROM folder_entries WHERE scout_id = ? AND dir = ? AND name = ?`)
			if err != nil {
				return fmt.Errorf("localdb: folder index: %w", err)
			}
			defer del.Close()
			for _, k := range b.Delete {
				if _, err := del.ExecContext(ctx, x.scoutID, k.Dir, k.Name); err != nil {
					return fmt.Errorf("localdb: folder index delete: %w", err)
				}
			}
		}
		if len(b.Put) > 0 {
			put, err := tx.PrepareContext(ctx, `INSERT INTO folder_entries (scout_id, dir, name, type, size, mtime_ns, hash) VALUES (?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (scout_id, dir, name) DO UPDATE SET type = excluded.type, size = excluded.size, mtime_ns = excluded.mtime_ns, hash = excluded.hash`)
			if err != nil {
				return fmt.Errorf("localdb: folder index: %w", err)
			}
			defer put.Close()
			for _, p := range b.Put {
				e := p.Entry
				if _, err := put.ExecContext(ctx, x.scoutID, p.Dir, e.Name, e.Type, e.Size, e.MtimeNs, e.Hash); err != nil {
					return fmt.Errorf("localdb: folder index put: %w", err)
				}
			}
		}
		return nil
	})
}

func (x *folderIndex) Cursor(ctx context.Context, name string) (string, error) {
	var v string
	err := x.db.read().QueryRowContext(ctx, `SELECT value FROM scout_cursors WHERE scout_id = ? AND name = ?`, x.scoutID, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("localdb: read cursor: %w", err)
	}
	return v, nil
}

func (x *folderIndex) SetCursor(ctx context.Context, name, value string) error {
	return x.db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO scout_cursors (scout_id, name, value) VALUES (?, ?, ?)
			ON CONFLICT (scout_id, name) DO UPDATE SET value = excluded.value`, x.scoutID, name, value)
		if err != nil {
			return fmt.Errorf("localdb: set cursor: %w", err)
		}
		return nil
	})
}
