package localdb

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSearchWords bounds the words of a note search: each is a scan term.
const maxSearchWords = 8

// SearchNoteTitles returns the titles of the notes whose title or body
// holds any word of the query (case-insensitive for ASCII letters, as
// SQLite's LIKE), those matching most words first, then the newest; at
// most limit titles (default 10). A query without a word of two letters
// or more finds nothing.
func (d *DB) SearchNoteTitles(ctx context.Context, query string, limit int) ([]string, error) {
	if limit <= 0 {
		limit = 10
	}
	words := searchWords(query)
	if len(words) == 0 {
		return []string{}, nil
	}
	terms := make([]string, 0, len(words))
	args := make([]any, 0, 2*len(words)+1)
	for _, w := range words {
		pat := "%" + escapeLike(w) + "%"
		terms = append(terms, `(title LIKE ? ESCAPE '\' OR body LIKE ? ESCAPE '\')`)
		args = append(args, pat, pat)
	}
	args = append(args, limit)
	rows, err := d.read().QueryContext(ctx, `SELECT title FROM (SELECT title, updated_at, id, `+strings.Join(terms, " + ")+` AS hits FROM notes)
		WHERE hits > 0 ORDER BY hits DESC, updated_at DESC, id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("localdb: search notes: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("localdb: search notes: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// searchWords splits a query into distinct lower-case words of two
// letters or more, at most maxSearchWords.
func searchWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if utf8.RuneCountInString(w) < 2 || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxSearchWords {
			break
		}
	}
	return out
}

// escapeLike escapes LIKE's wildcards for ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
