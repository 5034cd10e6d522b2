package localdb

import (
	"strings"
	"unicode"
)

// snippetWords is how many words a snippet shows.
const snippetWords = 16

// snippetOf is the text around the first word that starts with one of the
// search's words, plain, "…" where it was cut. It is made here rather than
// with FTS5's snippet(): that reads each hit's match again, and for a
// common word, again the whole list of rows that hold it
// (BenchmarkSearch).
func snippetOf(text string, words []string) string {
	fields := strings.Fields(text)
	at := -1
	for i, f := range fields {
		f = strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		for _, w := range words {
			if w != "" && strings.HasPrefix(f, w) {
				at = i
				break
			}
		}
		if at >= 0 {
			break
		}
	}
	from := max(0, at-snippetWords/3)
	to := min(len(fields), from+snippetWords)
	out := strings.Join(fields[from:to], " ")
	if from > 0 {
		out = "…" + out
	}
	if to < len(fields) {
		out += "…"
	}
	return out
}
