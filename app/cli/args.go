package cli

import (
	"fmt"
	"strings"
)

// splitCommand finds the command among the arguments and the flags that
// may stand anywhere on the line. --data DIR belongs to every command: it
// is taken from wherever it stands (before the command, between a command
// and its subcommand, after) and passed on last, where each command's flag
// set reads it. Before the command, --help and --version name those
// commands and --json is passed on like --data; any other flag there is an
// error, since only the command knows whether it takes a value. Arguments
// after "--" are left alone.
func splitCommand(args []string) (cmd string, rest []string, err error) {
	var data, moved []string
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "data" && a != "-" {
			if !hasValue {
				if i+1 >= len(args) {
					return "", nil, usageErrorf("--data needs a directory: --data DIR")
				}
				i++
				value = args[i]
			}
			data = []string{"--data", value}
			continue
		}
		if cmd != "" {
			rest = append(rest, a)
			continue
		}
		switch {
		case a == "-h" || name == "help" && strings.HasPrefix(a, "-"):
			cmd = "help"
		case name == "version" && strings.HasPrefix(a, "-"):
			cmd = "version"
		case name == "json" && strings.HasPrefix(a, "-"):
			moved = append(moved, a)
		case strings.HasPrefix(a, "-") && a != "-":
			return "", nil, usageErrorf("%s goes after the command it belongs to (scouts COMMAND %s; scouts help lists the commands)", a, a)
		default:
			cmd = a
		}
	}
	rest = append(append(rest, moved...), data...)
	rest = append(rest, args[i:]...)
	return cmd, rest, nil
}

// commandNames are the commands the usage text lists, in its order: the
// first word of each line indented by two spaces ("tasks|notes|…" gives
// each).
func commandNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(usage, "\n") {
		rest, ok := strings.CutPrefix(line, "  ")
		if !ok || rest == "" || rest[0] < 'a' || rest[0] > 'z' {
			continue
		}
		word, _, _ := strings.Cut(rest, " ")
		for _, w := range strings.Split(word, "|") {
			if w != "" && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// didYouMean names the listed command nearest to a mistyped one, as
// ` (did you mean "scouts"?)`, or "" when none is near: one the word
// begins (an abbreviation: "bring" is "bring-back", not "brief", two
// edits away), else one within two edits (one for short words).
func didYouMean(word string, names []string) string {
	lower := strings.ToLower(word)
	if len(word) >= 3 {
		for _, n := range names {
			if strings.HasPrefix(n, lower) {
				return fmt.Sprintf(" (did you mean %q?)", n)
			}
		}
	}
	best, bestD := "", 0
	for _, n := range names {
		d := editDistance(lower, n)
		if best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	limit := 2
	if len(word) <= 4 {
		limit = 1
	}
	if best != "" && bestD <= limit {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, counting a
// swap of two neighbouring letters as one edit ("sutats" is two from
// "status", "stauts" one).
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// rows i-2, i-1 and i of the table.
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
