package learn

import (
	"fmt"
	"math"
	"strings"
)

// Explain turns a binary prediction's decisive clues into plain words, from
// the side the prediction leans to: who sent it ("you approved 9 of 10
// from this sender"), which list, which words. verbA and verbB name what
// the person did for each class ("approved", "rejected"; "marked as spam",
// "kept"). At most three phrases, strongest first.
func Explain(b Binary, verbA, verbB string) []string {
	if b.P < 0 || len(b.Clues) == 0 {
		return nil
	}
	forA := b.P >= 0.5
	var out []string
	var words []string
	took := map[Group]bool{}
	for _, c := range b.Clues {
		if (c.P >= 0.5) != forA {
			continue
		}
		switch c.Group {
		case GroupSender, GroupList, GroupDomain, GroupListSender:
			if took[c.Group] || len(out) >= 2 {
				continue
			}
			took[c.Group] = true
			out = append(out, countPhrase(c, forA, verbA, verbB))
		case GroupSubject, GroupBody:
			if len(words) < 3 && !strings.Contains(c.Text, " ") && !strings.Contains(c.Text, ":") && !contains(words, c.Text) {
				words = append(words, c.Text)
			}
		case GroupPath:
			if !took[c.Group] {
				took[c.Group] = true
				out = append(out, countPhrase(c, forA, verbA, verbB))
			}
		}
	}
	if len(words) > 0 {
		out = append(out, "words like "+quoteList(words))
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// ExplainKind says why the kind model proposes its kind.
func ExplainKind(k KindGuess) []string {
	if k.Kind == "" || len(k.Clues) == 0 {
		return nil
	}
	c := k.Clues[0]
	n := int(math.Round(c.A))
	if n < 1 {
		return nil
	}
	what := ""
	switch c.Group {
	case GroupSender:
		what = "from this sender"
	case GroupListSender:
		what = "from this sender on this list"
	case GroupList:
		what = "from this list"
	case GroupDomain:
		what = "from " + c.Text
	case GroupPath:
		what = "in the folder " + c.Text
	case GroupExt:
		what = "." + c.Text + " files"
	default:
		what = "with the word “" + c.Text + "”"
	}
	article := "a"
	if k.Kind != "" && strings.ContainsRune("aeiou", rune(k.Kind[0])) {
		article = "an"
	}
	return []string{fmt.Sprintf("you made %d %s into %s %s", n, what, article, k.Kind)}
}

func countPhrase(c Clue, forA bool, verbA, verbB string) string {
	a, b := int(math.Round(c.A)), int(math.Round(c.B))
	verb, n := verbA, a
	if !forA {
		verb, n = verbB, b
	}
	total := a + b
	var what string
	switch c.Group {
	case GroupSender:
		what = "from this sender"
	case GroupListSender:
		what = "from this sender on this list"
	case GroupList:
		what = "from this list"
	case GroupDomain:
		what = "from " + c.Text
	case GroupPath:
		what = "from the folder " + c.Text
	}
	if n == total {
		return fmt.Sprintf("you %s %d %s", verb, n, what)
	}
	return fmt.Sprintf("you %s %d of %d %s", verb, n, total, what)
}

func quoteList(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "“" + w + "”"
	}
	return strings.Join(q, ", ")
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}
