package mcpclient

import (
	"bytes"
	"encoding/json"
	"strings"
)

// DiffRow is one line of a side-by-side diff: the old definition's line on
// the left, the new one's on the right. Op is "same", "changed" (both
// sides, different), "removed" (left only) or "added" (right only).
type DiffRow struct {
	Op  string `json:"op"`
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// maxDiffLines bounds each side: a diff is for a person to read, and a
// longer definition is shown as replaced in full.
const maxDiffLines = 2000

// SideBySide sets two definitions side by side, line by line, each
// printed as indented JSON with sorted keys (so a schema's change shows
// on the lines it touches).
func SideBySide(old, new Definition) []DiffRow {
	a, b := pretty(old), pretty(new)
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		var rows []DiffRow
		for _, l := range a {
			rows = append(rows, DiffRow{Op: "removed", Old: l})
		}
		for _, l := range b {
			rows = append(rows, DiffRow{Op: "added", New: l})
		}
		return rows
	}
	return pair(lcsDiff(a, b))
}

func pretty(d Definition) []string {
	raw, _ := json.Marshal(d)
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return strings.Split(string(raw), "\n")
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return strings.Split(string(out), "\n")
}

// lcsDiff is the classic longest-common-subsequence diff of two line
// lists: rows of same, removed and added.
func lcsDiff(a, b []string) []DiffRow {
	n, m := len(a), len(b)
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var rows []DiffRow
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			rows = append(rows, DiffRow{Op: "same", Old: a[i], New: b[j]})
			i, j = i+1, j+1
		case l[i+1][j] >= l[i][j+1]:
			rows = append(rows, DiffRow{Op: "removed", Old: a[i]})
			i++
		default:
			rows = append(rows, DiffRow{Op: "added", New: b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		rows = append(rows, DiffRow{Op: "removed", Old: a[i]})
	}
	for ; j < m; j++ {
		rows = append(rows, DiffRow{Op: "added", New: b[j]})
	}
	return rows
}

// pair sets each run of removed lines beside the run of added lines that
// follows it, as "changed" rows, so the two sides line up.
func pair(rows []DiffRow) []DiffRow {
	var out []DiffRow
	for i := 0; i < len(rows); {
		if rows[i].Op != "removed" {
			out = append(out, rows[i])
			i++
			continue
		}
		var rem, add []string
		for ; i < len(rows) && rows[i].Op == "removed"; i++ {
			rem = append(rem, rows[i].Old)
		}
		for ; i < len(rows) && rows[i].Op == "added"; i++ {
			add = append(add, rows[i].New)
		}
		for k := 0; k < max(len(rem), len(add)); k++ {
			switch {
			case k < len(rem) && k < len(add):
				out = append(out, DiffRow{Op: "changed", Old: rem[k], New: add[k]})
			case k < len(rem):
				out = append(out, DiffRow{Op: "removed", Old: rem[k]})
			default:
				out = append(out, DiffRow{Op: "added", New: add[k]})
			}
		}
	}
	return out
}

// Changes returns the rows that differ: what a person reviews.
func Changes(rows []DiffRow) []DiffRow {
	var out []DiffRow
	for _, r := range rows {
		if r.Op != "same" {
			out = append(out, r)
		}
	}
	return out
}
