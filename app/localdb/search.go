package localdb

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/store"
)

// SearchHit is one thing a search found.
type SearchHit struct {
	Type  string // SearchCard, SearchTask, …
	ID    string
	Title string
	// Snippet is the indexed text around the match (a card's excerpt or
	// path, an entity's body); for a search by filters alone, its start.
	Snippet string
	Sender  string
	// ScoutID is the card's scout, or the scout of the card an entity was
	// made from ("" for an entity made by hand).
	ScoutID   string
	ScoutName string
	// Lane, Status and ProposedKind are a card's.
	Lane         scouts.Lane
	Status       scouts.Status
	ProposedKind scouts.EntityKind
	Done         bool // a task's or project's
	// At is what before: and after: compare: an event's start (its
	// creation when it has none), anything else's creation.
	At time.Time
	// Rank orders the hits of a search with words, best (lowest) first:
	// FTS5's bm25 with the title weighing most. Zero for filters alone.
	Rank float64
}

// Search limits: a search answers at most searchMaxLimit hits.
const (
	searchDefaultLimit = 50
	searchMaxLimit     = 200
)

// searchWeights are bm25's column weights: title, body, sender.
const searchWeights = "10.0, 1.0, 4.0"

// searchCandidates bounds how many matches a search ranks: the newest
// that pass its filters. bm25 is computed for each match ranked, and a
// common word or a short prefix matches a good share of 100,000 rows
// (BenchmarkSearch: ranking every match of such words took a bare FTS5
// query 200 ms and more, ranking the newest 2,000 stays within a few
// milliseconds). Older matches beyond these are found by adding a word
// or a filter (before:).
const searchCandidates = 2000

// typeCond is one result type's share of a search: how its rows are
// reached from the index, its date, and its filters.
type typeCond struct {
	typ   string
	code  int    // the type's code in the index's rowid (rowid & 7)
	alias string // its table's alias in the search's joins
	table string
	at    string // the expression before:/after: compare
}

var searchTables = []typeCond{
	{SearchCard, 1, "s", "suggestions", "s.created_at"},
	{SearchTask, 2, "t", "tasks", "t.created_at"},
	{SearchNote, 3, "n", "notes", "n.created_at"},
	{SearchEvent, 4, "e", "events", "COALESCE(e.starts_at, e.created_at)"},
	{SearchProject, 5, "p", "projects", "p.created_at"},
}

// Search finds what the query asks for, best first for words, newest
// first for filters alone; at most limit hits (default 50, at most 200).
func (d *DB) Search(ctx context.Context, sq SearchQuery, limit int) ([]SearchHit, error) {
	if limit <= 0 {
		limit = searchDefaultLimit
	}
	limit = min(limit, searchMaxLimit)
	names, err := d.scoutNames(ctx)
	if err != nil {
		return nil, err
	}
	scoutIDs, err := resolveScouts(sq.Scouts, names)
	if err != nil {
		return nil, err
	}
	var parts []string
	var args []any
	uses := map[string]bool{}
	for _, tc := range searchTables {
		c, a, used, ok := sq.condUses(tc, scoutIDs)
		if !ok {
			continue
		}
		for _, u := range used {
			uses[u] = true
		}
		if sq.Match != "" {
			parts = append(parts, "((f.rowid & 7) = "+strconv.Itoa(tc.code)+" AND "+c+")")
		} else {
			parts = append(parts, searchFilterSQL(tc, c))
			a = append(a, limit)
		}
		args = append(args, a...)
	}
	if len(parts) == 0 {
		return []SearchHit{}, nil
	}
	var q string
	if sq.Match != "" {
		q = searchMatchStart + searchJoinsFor(uses, "f.rowid") + searchMatchWhere + strings.Join(parts, " OR ") + searchMatchEnd
		args = append([]any{sq.Match}, args...)
	} else {
		q = `SELECT * FROM (` + strings.Join(parts, "\n\tUNION ALL ") + `) ORDER BY 11 DESC LIMIT ?`
	}
	args = append(args, limit)
	rows, err := d.read().QueryContext(ctx, q, args...)
	if err != nil {
		if strings.Contains(err.Error(), "fts5: syntax error") {
			return nil, scouts.Errorf(scouts.EInvalid, "the search could not be read: %v", err)
		}
		return nil, fmt.Errorf("localdb: search: %w", err)
	}
	defer rows.Close()
	out := []SearchHit{}
	for rows.Next() {
		var h SearchHit
		var scout, lane, status, kind sql.NullString
		var at sql.NullInt64
		var rowid int64 // the index's, read for nothing here
		if err := rows.Scan(&h.Type, &h.ID, &h.Title, &h.Snippet, &h.Sender, &scout, &lane, &status, &kind, &h.Done, &at, &h.Rank, &rowid); err != nil {
			return nil, fmt.Errorf("localdb: search: %w", err)
		}
		h.ScoutID, h.ScoutName = scout.String, names[scout.String]
		h.Lane, h.Status, h.ProposedKind = scouts.Lane(lane.String), scouts.Status(status.String), scouts.EntityKind(kind.String)
		h.At = store.FromMillis(at)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("localdb: search: %w", err)
	}
	if sq.Match != "" {
		for i := range out {
			out[i].Snippet = snippetOf(out[i].Snippet, sq.Words)
		}
	}
	return out, nil
}

// condFor is the WHERE condition of one result type, or false when the
// query cannot return that type.
func (sq SearchQuery) condFor(tc typeCond, scoutIDs []string) (string, []any, bool) {
	c, args, _, ok := sq.condUses(tc, scoutIDs)
	return c, args, ok
}

// condUses is condFor with the tables (aliases) the condition reads.
func (sq SearchQuery) condUses(tc typeCond, scoutIDs []string) (string, []any, []string, bool) {
	if sq.Types != nil && !sq.Types[tc.typ] {
		return "", nil, nil, false
	}
	cardOnly := len(sq.Lanes) > 0 || len(sq.Statuses) > 0
	if cardOnly && tc.typ != SearchCard {
		return "", nil, nil, false
	}
	if sq.Done != nil && tc.typ != SearchTask && tc.typ != SearchProject {
		return "", nil, nil, false
	}
	var uses []string
	var parts []string
	var args []any
	in := func(col string, vals []any) {
		parts = append(parts, col+" IN (?"+strings.Repeat(", ?", len(vals)-1)+")")
		args = append(args, vals...)
	}
	if len(sq.Lanes) > 0 {
		in("s.lane", anys(sq.Lanes))
	}
	if len(sq.Statuses) > 0 {
		in("s.status", anys(sq.Statuses))
	}
	if sq.Done != nil {
		parts = append(parts, tc.alias+".done = ?")
		args = append(args, *sq.Done)
	}
	if len(scoutIDs) > 0 {
		col := "src.scout_id"
		if tc.typ == SearchCard {
			col = "s.scout_id"
		} else {
			uses = append(uses, "src")
		}
		in(col, anys(scoutIDs))
	}
	if !sq.After.IsZero() {
		parts = append(parts, tc.at+" >= ?")
		args = append(args, sq.After.UnixMilli())
	}
	if !sq.Before.IsZero() {
		parts = append(parts, tc.at+" < ?")
		args = append(args, sq.Before.UnixMilli())
	}
	if len(parts) == 0 {
		return "1", args, nil, true
	}
	return strings.Join(parts, " AND "), args, append(uses, tc.alias), true
}

// searchMatchSQL finds the index's matches, newest first, and reaches
// each one's row by its type and id; the types' conditions follow, each
// applying to its own type's rows, then the bound on the matches ranked
// (searchCandidates).
const searchMatchStart = `WITH c AS (SELECT * FROM (SELECT f.rowid AS fr, bm25(search_index, ` + searchWeights + `) AS r
	FROM search_index f`

// searchMatchWhere follows the joins the filters need (searchJoinsFor).
const searchMatchWhere = `
	WHERE search_index MATCH ? AND (`

// searchMatchEnd closes the match query: the candidates ranked, the best
// kept, and only then each one's row read for what the hit shows. Before
// it, only the joins the filters read are made: each costs an index
// lookup per match scanned (BenchmarkSearch: all six for every one of
// 2,000 candidates made a search 6 times slower than the bare index).
var searchMatchEnd = `) ORDER BY f.rowid DESC LIMIT ` + searchCandidatesText + `) ORDER BY r LIMIT ?)
	SELECT x.kind, x.ref, x.title, x.body, x.sender,
		COALESCE(s.scout_id, src.scout_id), s.lane, s.status, s.proposed_kind, COALESCE(t.done, p.done, 0),
		CASE x.kind WHEN 'card' THEN s.created_at WHEN 'task' THEN t.created_at WHEN 'note' THEN n.created_at
			WHEN 'event' THEN COALESCE(e.starts_at, e.created_at) ELSE p.created_at END,
		c.r, c.fr
	FROM c CROSS JOIN search_index x ON x.rowid = c.fr
` + searchJoinsFor(allSearchJoins, "c.fr") + `
	ORDER BY c.r`

// searchJoinOrder lists the joins that reach a match's row by its type
// code and rowid (the index's rowid is the row's * 8 + its type code,
// migration 0014: nothing of the index's content is read to reach it), and
// an entity's card (src, for its scout), in the order they can be made;
// {F} stands for the index's rowid.
var searchJoinOrder = []struct{ alias, sql string }{
	{"s", `LEFT JOIN suggestions s ON ({F} & 7) = 1 AND s.rowid = ({F} >> 3)`},
	{"t", `LEFT JOIN tasks t ON ({F} & 7) = 2 AND t.rowid = ({F} >> 3)`},
	{"n", `LEFT JOIN notes n ON ({F} & 7) = 3 AND n.rowid = ({F} >> 3)`},
	{"e", `LEFT JOIN events e ON ({F} & 7) = 4 AND e.rowid = ({F} >> 3)`},
	{"p", `LEFT JOIN projects p ON ({F} & 7) = 5 AND p.rowid = ({F} >> 3)`},
	{"src", `LEFT JOIN suggestions src ON ({F} & 7) <> 1 AND src.id = COALESCE(t.source_suggestion_id, n.source_suggestion_id,
		e.source_suggestion_id, p.source_suggestion_id)`},
}

var allSearchJoins = map[string]bool{"s": true, "t": true, "n": true, "e": true, "p": true, "src": true}

// searchJoinsFor is the joins of the aliases in uses, on the index's
// rowid f; src reads all four entity tables, so it brings them.
func searchJoinsFor(uses map[string]bool, f string) string {
	var b strings.Builder
	for _, j := range searchJoinOrder {
		if uses[j.alias] || (uses["src"] && j.alias != "s") {
			b.WriteString("\n\t" + strings.ReplaceAll(j.sql, "{F}", f))
		}
	}
	return b.String()
}

var searchCandidatesText = strconv.Itoa(searchCandidates)

// searchFilterSQL lists one type's rows that pass its filters (cond),
// newest first, at most a limit given after cond's arguments; the columns
// are searchMatchSQL's.
func searchFilterSQL(tc typeCond, cond string) string {
	a := tc.alias
	if tc.typ == SearchCard {
		return `SELECT * FROM (SELECT 'card', s.id, s.title, substr(trim(s.excerpt || ' ' || s.path), 1, 160), s.sender, s.scout_id,
			s.lane, s.status, s.proposed_kind, 0, s.created_at, 0.0, 0 FROM suggestions s WHERE ` + cond + ` ORDER BY s.created_at DESC LIMIT ?)`
	}
	done := "0"
	if tc.typ == SearchTask || tc.typ == SearchProject {
		done = a + ".done"
	}
	return `SELECT * FROM (SELECT '` + tc.typ + `', ` + a + `.id, ` + a + `.title, substr(` + a + `.body, 1, 160), COALESCE(src.sender, ''), src.scout_id,
			NULL, NULL, NULL, ` + done + `, ` + tc.at + `, 0.0, 0 FROM ` + tc.table + ` ` + a + `
			LEFT JOIN suggestions src ON src.id = ` + a + `.source_suggestion_id WHERE ` + cond + ` ORDER BY ` + tc.at + ` DESC LIMIT ?)`
}

// scoutNames maps every scout's id to its name, deleted scouts included
// (their cards are still found).
func (d *DB) scoutNames(ctx context.Context) (map[string]string, error) {
	rows, err := d.read().QueryContext(ctx, `SELECT id, name FROM scouts`)
	if err != nil {
		return nil, fmt.Errorf("localdb: search: scouts: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("localdb: search: scouts: %w", err)
		}
		out[id] = name
	}
	return out, rows.Err()
}

// resolveScouts turns scout: values (an id, or a name in any case) into
// ids; a value that names no scout is refused.
func resolveScouts(vals []string, names map[string]string) ([]string, error) {
	var ids []string
	for _, v := range vals {
		found := false
		for id, name := range names {
			if id == v || strings.EqualFold(name, v) {
				ids = append(ids, id)
				found = true
			}
		}
		if !found {
			return nil, scouts.Errorf(scouts.EInvalid, "scout:%s names no scout (give its name, in quotes if it has spaces, or its id)", v)
		}
	}
	return ids, nil
}

func anys[T any](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}
