package localdb

import (
	"context"
	"fmt"
	"strconv"
)

// BareSearch is the floor BenchmarkSearch measures Search against: the
// index alone answers the rowids of its best matches, nothing joined nor
// filtered; all ranks every match, else the newest searchCandidates are
// ranked, as Search does.
func (d *DB) BareSearch(ctx context.Context, match string, limit int, all bool) ([]int64, error) {
	q := `SELECT rowid FROM (SELECT rowid, rank FROM search_index WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ` +
		strconv.Itoa(searchCandidates) + `) ORDER BY rank LIMIT ?`
	if all {
		q = `SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY rank LIMIT ?`
	}
	rows, err := d.read().QueryContext(ctx, q, match, limit)
	if err != nil {
		return nil, fmt.Errorf("bare search: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// DropSearchIndex takes the search index's triggers away, for measuring
// what keeping the index costs a write.
func (d *DB) DropSearchIndex(ctx context.Context) error {
	for _, typ := range []string{"card", "task", "note", "event", "project"} {
		for _, op := range []string{"insert", "update", "delete"} {
			if _, err := d.db.Writer().ExecContext(ctx, `DROP TRIGGER search_`+typ+`_`+op); err != nil {
				return err
			}
		}
	}
	return nil
}
