package defdraft

import "strings"

// DiffLine is one line of a line diff: Op is "same", "add" or "remove".
type DiffLine struct {
	Op   string
	Text string
}

// maxDiffCells bounds the table of the longest common subsequence: past it
// (two documents of thousands of changed lines) the middle is shown as
// removed then added, still correct, only less tidy.
const maxDiffCells = 4_000_000

// LineDiff compares two texts line by line: the lines of a, with those
// not in b removed, and those of b not in a added where they go (a longest
// common subsequence of lines, after the common start and end).
func LineDiff(a, b string) []DiffLine {
	x, y := lines(a), lines(b)
	var out []DiffLine
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		out = append(out, DiffLine{"same", x[pre]})
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	out = append(out, middle(x[pre:len(x)-suf], y[pre:len(y)-suf])...)
	for _, l := range x[len(x)-suf:] {
		out = append(out, DiffLine{"same", l})
	}
	return out
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func middle(x, y []string) []DiffLine {
	var out []DiffLine
	if (len(x)+1)*(len(y)+1) > maxDiffCells {
		for _, l := range x {
			out = append(out, DiffLine{"remove", l})
		}
		for _, l := range y {
			out = append(out, DiffLine{"add", l})
		}
		return out
	}
	// lcs[i][j]: the longest common subsequence of x[i:] and y[j:].
	w := len(y) + 1
	lcs := make([]int, (len(x)+1)*w)
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out = append(out, DiffLine{"same", x[i]})
			i, j = i+1, j+1
		// Removed lines first, then added: how a person reads a change.
		case i < len(x) && (j == len(y) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			out = append(out, DiffLine{"remove", x[i]})
			i++
		default:
			out = append(out, DiffLine{"add", y[j]})
			j++
		}
	}
	return out
}
