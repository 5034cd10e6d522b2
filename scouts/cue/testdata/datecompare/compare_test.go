// Package datecompare measures the natural-language date libraries that
// were candidates for scouts/cue on the labelled phrases in ../phrases.tsv.
//
// It is a module of its own so that the candidates never enter the main
// module's go.mod; the main module ignores everything under testdata. Run it
// from this directory:
//
//	go test -run TestCompare -v .
//	go test -run '^$' -bench . -benchmem .
package datecompare

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	anytime "github.com/ijt/go-anytime"
	dps "github.com/markusmobius/go-dateparser"
	"github.com/olebedev/when"
	"github.com/olebedev/when/rules/common"
	"github.com/olebedev/when/rules/en"
	naturaldate "github.com/tj/go-naturaldate"
)

// hit is one date a library found in a text.
type hit struct {
	t    time.Time
	text string
}

// finder returns the dates a library finds in text, in text order.
type finder func(text string, ref time.Time) []hit

type candidate struct {
	name string
	find finder
}

func candidates() []candidate {
	w := when.New(nil)
	w.Add(en.All...)
	w.Add(common.All...)
	findWhen := func(text string, ref time.Time) []hit {
		// when reports the first cluster only: cut after it and go on.
		var hits []hit
		for off := 0; off < len(text); {
			r, err := w.Parse(text[off:], ref)
			if err != nil || r == nil {
				break
			}
			hits = append(hits, hit{r.Time, r.Text})
			off += r.Index + len(r.Text)
			if len(r.Text) == 0 {
				break
			}
		}
		return hits
	}

	p := &dps.Parser{}
	findDPS := func(source dps.PreferredDateSource, strategy string) finder {
		return func(text string, ref time.Time) []hit {
			cfg := &dps.Configuration{
				Languages:           []string{"en"},
				CurrentTime:         ref,
				PreferredDateSource: source,
				ReturnTimeAsPeriod:  true,
				SearchStrategy:      strategy,
			}
			_, res, err := p.Search(cfg, text)
			if err != nil {
				return nil
			}
			hits := make([]hit, 0, len(res))
			for _, r := range res {
				hits = append(hits, hit{r.Date.Time, r.Text})
			}
			return hits
		}
	}

	findAnytime := func(text string, ref time.Time) []hit {
		var hits []hit
		anytime.PartitionTimesByFuncs(text, ref, func(string) {},
			func(chunk string, t time.Time) { hits = append(hits, hit{t, chunk}) },
			anytime.DefaultToFuture)
		return hits
	}

	// go-naturaldate parses a whole string and fails on any word it does not
	// know, so searching a text means trying every window of words, longest
	// first.
	findNatural := func(text string, ref time.Time) []hit {
		words := strings.Fields(text)
		var hits []hit
		for i := 0; i < len(words); {
			found := 0
			for n := min(6, len(words)-i); n > 0; n-- {
				s := strings.Trim(strings.Join(words[i:i+n], " "), ".,;:!?()")
				if s == "" {
					continue
				}
				t, err := naturaldate.Parse(s, ref, naturaldate.WithDirection(naturaldate.Future))
				if err == nil && !t.Equal(ref) {
					hits = append(hits, hit{t, s})
					found = n
					break
				}
			}
			i += max(found, 1)
		}
		return hits
	}

	raw := []candidate{
		{"olebedev/when v1.1.0", findWhen},
		{"markusmobius/go-dateparser v1.4.7 split", findDPS(dps.Future, "split")},
		{"markusmobius/go-dateparser v1.4.7 ngram", findDPS(dps.Future, "ngram")},
		{"ijt/go-anytime v1.9.2", findAnytime},
		{"tj/go-naturaldate v1.3.0", findNatural},
	}
	all := raw
	for _, c := range raw {
		all = append(all, candidate{c.name + " + masking", withMasking(c.find)})
	}
	return all
}

type phrase struct {
	text    string
	date    string // YYYY-MM-DD, or "" when no date may be found
	clock   string // HH:MM when the phrase names a time
	section string
}

func loadPhrases(t testing.TB) []phrase {
	f, err := os.Open("../phrases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []phrase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t") // kind, want, text, optional limit
		if len(cols) < 3 || len(cols) > 4 {
			t.Fatalf("phrases.tsv: bad line %q", line)
		}
		p := phrase{text: cols[2]}
		if cols[1] != "none" {
			d, c, _ := strings.Cut(cols[1], " ")
			p.date, p.clock = d, c
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func ref(t testing.TB) time.Time {
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	return time.Date(2026, 11, 25, 9, 12, 0, 0, loc)
}

type score struct {
	dated, right, rightClock, clocked, wrong, missed, traps, falseDates int
}

// judge scores the first date found, the one a card would pre-fill.
func judge(p phrase, hits []hit, s *score) string {
	if p.date == "" {
		s.traps++
		if len(hits) > 0 {
			s.falseDates++
			return fmt.Sprintf("false date %q → %s", hits[0].text, hits[0].t.Format("2006-01-02 15:04"))
		}
		return ""
	}
	s.dated++
	if p.clock != "" {
		s.clocked++
	}
	if len(hits) == 0 {
		s.missed++
		return "missed"
	}
	h := hits[0]
	if h.t.Format("2006-01-02") != p.date {
		s.wrong++
		return fmt.Sprintf("wrong %q → %s", h.text, h.t.Format("2006-01-02 15:04"))
	}
	s.right++
	if p.clock != "" {
		if h.t.Format("15:04") != p.clock {
			return fmt.Sprintf("wrong time %q → %s", h.text, h.t.Format("15:04"))
		}
		s.rightClock++
	}
	return ""
}

func TestCompare(t *testing.T) {
	phrases := loadPhrases(t)
	r := ref(t)
	fmt.Println("| library | right date | right time (of those naming one) | wrong date | missed | false dates on traps |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, c := range candidates() {
		var s score
		for _, p := range phrases {
			if why := judge(p, c.find(p.text, r), &s); why != "" {
				t.Logf("%s: %q: %s", c.name, p.text, why)
			}
		}
		fmt.Printf("| %s | %d / %d | %d / %d | %d | %d | %d / %d |\n", c.name,
			s.right, s.dated, s.rightClock, s.clocked, s.wrong, s.missed, s.falseDates, s.traps)
	}
}

func BenchmarkFind(b *testing.B) {
	phrases := loadPhrases(b)
	mail, err := os.ReadFile("../mail2k.txt")
	if err != nil {
		b.Fatal(err)
	}
	r := ref(b)
	for _, c := range candidates() {
		name := strings.ReplaceAll(c.name, " ", "_")
		b.Run(name+"/phrase", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.find(phrases[i%len(phrases)].text, r)
			}
		})
		b.Run(name+"/mail2k", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.find(string(mail), r)
			}
		})
	}
}
