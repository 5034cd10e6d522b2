package cue

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
)

// The labelled phrases in testdata/phrases.tsv are shared with the library
// comparison in testdata/datecompare; both read them on the same reference.

type phrase struct {
	kind    scouts.EntityKind // "" when no cue should decide
	date    string            // YYYY-MM-DD, "" when no date may be found
	clock   string            // HH:MM when the phrase names a time
	text    string
	limit   string // a known limit of the date library this line hits
	heldOut bool   // written after the pre-pass was tuned
}

func loadPhrases(t testing.TB) []phrase {
	t.Helper()
	f, err := os.Open("testdata/phrases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []phrase
	heldOut := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# Held out") {
			heldOut = true
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 || len(cols) > 4 {
			t.Fatalf("phrases.tsv: bad line %q", line)
		}
		p := phrase{text: cols[2], heldOut: heldOut}
		if len(cols) == 4 {
			p.limit = cols[3]
		}
		if cols[0] != "default" {
			p.kind = scouts.EntityKind(cols[0])
		}
		if cols[1] != "none" {
			p.date, p.clock, _ = strings.Cut(cols[1], " ")
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// phraseRef is Wednesday 25 November 2026, 09:12 in Paris.
func phraseRef(t testing.TB) time.Time {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	return time.Date(2026, 11, 25, 9, 12, 0, 0, loc)
}

func firstDate(text string, ref time.Time) (hit, bool) {
	for _, s := range sentences(text) {
		if hs := findDates(s, ref); len(hs) > 0 {
			return hs[0], true
		}
	}
	return hit{}, false
}

// TestPhraseDates reads every labelled phrase's first date as the card
// would: the right day, the right time where one is said, and no date at
// all in amounts, versions and phone numbers. Lines marked with a known
// limit of the library are counted wrong but do not fail.
func TestPhraseDates(t *testing.T) {
	ref := phraseRef(t)
	var sc [2]dateScore
	for _, p := range loadPhrases(t) {
		h, found := firstDate(p.text, ref)
		s := &sc[0]
		if p.heldOut {
			s = &sc[1]
		}
		problem := s.judge(p, h, found)
		switch {
		case problem != "" && p.limit == "":
			t.Errorf("%q: %s", p.text, problem)
		case problem == "" && p.limit != "":
			t.Errorf("%q: now right; remove its limit (%s)", p.text, p.limit)
		case problem != "":
			t.Logf("%q: %s (known limit: %s)", p.text, problem, p.limit)
		}
	}
	for i, name := range []string{"tuned on", "held out"} {
		s := sc[i]
		t.Logf("%s: right date %d/%d, right time %d/%d, false dates %d/%d traps",
			name, s.right, s.dated, s.rightClock, s.clocked, s.falseDates, s.traps)
	}
}

type dateScore struct{ dated, right, clocked, rightClock, traps, falseDates int }

// judge scores one phrase's first date and says what is wrong, if anything.
func (s *dateScore) judge(p phrase, h hit, found bool) string {
	if p.date == "" {
		s.traps++
		if found {
			s.falseDates++
			return fmt.Sprintf("false date %q → %s", h.text, h.at.Format("2006-01-02 15:04"))
		}
		return ""
	}
	s.dated++
	if p.clock != "" {
		s.clocked++
	}
	switch {
	case !found:
		return "no date found, want " + p.date
	case h.at.Format("2006-01-02") != p.date:
		return fmt.Sprintf("%q → %s, want %s", h.text, h.at.Format("2006-01-02"), p.date)
	}
	s.right++
	if p.clock == "" {
		return ""
	}
	if !h.timed || h.at.Format("15:04") != p.clock {
		return fmt.Sprintf("%q → time %s (timed %v), want %s", h.text, h.at.Format("15:04"), h.timed, p.clock)
	}
	s.rightClock++
	return ""
}

// TestPhraseKinds runs Propose on every labelled phrase as a mail (default
// kind task): the kind, and the due date or start for dates still ahead.
func TestPhraseKinds(t *testing.T) {
	ref := phraseRef(t)
	var right, n [2]int
	for _, p := range loadPhrases(t) {
		got := Propose(Input{Title: p.text, Ref: ref, Loc: ref.Location(), DefaultKind: scouts.EntityTask})
		i := 0
		if p.heldOut {
			i = 1
		}
		n[i]++
		want := p.kind
		if want == "" {
			want = scouts.EntityTask
		}
		if got.Kind != want {
			t.Errorf("%q: kind %s, want %s (why: %q)", p.text, got.Kind, want, got.Reasons)
			continue
		}
		right[i]++
		var at time.Time
		switch got.Kind {
		case scouts.EntityTask:
			at = got.Due
		case scouts.EntityEvent:
			at = got.Start
		}
		wantDate := p.date
		if wantDate != "" && wantDate < ref.Format("2006-01-02") {
			wantDate = "" // past: never a due date or a start
		}
		gotDate := ""
		if !at.IsZero() {
			gotDate = at.Format("2006-01-02")
		}
		if gotDate != wantDate && p.limit == "" {
			t.Errorf("%q: %s date %q, want %q (why: %q)", p.text, got.Kind, gotDate, wantDate, got.Reasons)
		}
	}
	t.Logf("kinds: tuned on %d/%d right, held out %d/%d right", right[0], n[0], right[1], n[1])
}
