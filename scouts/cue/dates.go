package cue

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/common"
	"github.com/olebedev/when/rules/en"
)

// Dates are read by github.com/olebedev/when (chosen on measurement: see
// docs/triage.md, "Kind and dates from content"). What this file adds around
// it is protection, not parsing: numbers that are not dates are blanked
// before the library sees them, the two numeric layouts it misreads as
// clock times are handed to it in its own D/M/YYYY layout, the explicit
// year it ignores after a month name is kept, and for speed it reads only
// the words around numbers and date words.

// hit is one date found in a segment.
type hit struct {
	start, end int // byte offsets in the segment
	text       string
	at         time.Time // midnight in the user's zone when untimed
	timed      bool      // the text names a time of day
	until      time.Time // end of a range ("10:00–12:00"), zero if none
	yearSaid   bool
}

// dateParser is built on first use: the agent at rest reads no text.
var dateParser = sync.OnceValue(func() *parser {
	// en.All, in its order, each behind the words it cannot match without:
	// the library runs every rule's regular expression over the whole text,
	// and the month rule alone costs about 1 µs a byte.
	return &parser{opts: rules.Options{Distance: 5, MatchByOrder: true}, rules: []rules.Rule{
		gated{en.Weekday(rules.Override), weekdayStems},
		gated{en.CasualDate(rules.Override), []string{"now", "today", "tonight", "night", "tomorrow", "tmr", "yesterday"}},
		gated{en.CasualTime(rules.Override), []string{"morning", "afternoon", "evening", "noon"}},
		gated{en.Hour(rules.Override), digits},
		gated{en.HourMinute(rules.Override), digits},
		gated{en.Deadline(rules.Override), unitStems},
		gated{en.PastTime(rules.Override), []string{"ago"}},
		gated{en.ExactMonthDate(rules.Override), monthStems},
		gated{slashDMY(), []string{"/", "\\"}},
		gated{nextWeek(), []string{"week"}},
	}}
})

var (
	weekdayStems = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}
	monthStems   = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	unitStems    = []string{"sec", "min", "hour", "day", "week", "month", "year"}
	digits       = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
)

// gated runs a rule only on text holding, at the start of a word, one of
// the strings every match of the rule contains, so skipping it never loses
// a match. Its text is lower case (see prepare).
type gated struct {
	rules.Rule
	any []string
}

func (g gated) Find(s string) *rules.Match {
	for _, a := range g.any {
		if atWordStart(s, a) {
			return g.Rule.Find(s)
		}
	}
	return nil
}

// atWordStart reports whether s holds sub where a word starts, or after a
// word the rules allow to run into the next ("1stdec", "nextfriday").
func atWordStart(s, sub string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return false
		}
		i += from
		if prev, _ := utf8.DecodeLastRuneInString(s[:i]); i == 0 || !unicode.IsLetter(prev) || glued(s[:i]) {
			return true
		}
		from = i + 1
	}
}

func glued(before string) bool {
	for _, p := range []string{"st", "nd", "rd", "th", "on", "this", "last", "past", "next", "in", "within"} {
		if strings.HasSuffix(before, p) {
			return true
		}
	}
	return false
}

// slashDMY is the library's D/M[/YYYY] rule with one fix: v1.1.0 sets
// nothing for a D/M whose month is later in the year than the reference's
// ("14/12" read in November comes back as the reference day). The
// reference's year is supplied and the library's own check runs again.
func slashDMY() rules.Rule {
	f := common.SlashDMY(rules.Override).(*rules.F)
	apply := f.Applier
	return &rules.F{RegExp: f.RegExp, Applier: func(m *rules.Match, c *rules.Context, o *rules.Options, ref time.Time) (bool, error) {
		ok, err := apply(m, c, o, ref)
		if err != nil || !ok || c.Day != nil || len(m.Captures) < 3 || m.Captures[2] != "" {
			return ok, err
		}
		m.Captures[2] = strconv.Itoa(ref.Year())
		return apply(m, c, o, ref)
	}}
}

// nextWeek reads "next week" as the Monday after this week, a rule the
// library lacks; it goes through the library's own rule interface, and
// leaves "Thursday next week" to the library's weekday rule (which reads it
// as the coming Thursday).
func nextWeek() rules.Rule {
	return &rules.F{
		RegExp: regexp.MustCompile(`(?i)(?:\W|^)(next\s+week)(?:\W|$)`),
		Applier: func(m *rules.Match, c *rules.Context, o *rules.Options, ref time.Time) (bool, error) {
			if c.Duration != 0 || c.Weekday != nil || c.Day != nil {
				return false, nil
			}
			days := (8 - int(ref.Weekday())) % 7
			if days == 0 {
				days = 7
			}
			c.Duration += time.Duration(days) * 24 * time.Hour
			return true, nil
		},
	}
}

// trap is a kind of number that must never become a date, with the bytes
// it cannot occur without (so most text skips its expression).
type trap struct {
	needs string // one of these bytes must be present; "" means any digit
	re    *regexp.Regexp
}

// textPatterns are the expressions prepare runs, compiled on first use
// (the agent at rest reads no text).
type textPatterns struct {
	traps                          []trap
	isoDate, dottedDate, monthYear *regexp.Regexp
	clock                          *regexp.Regexp // see dayPart
}

var patterns = sync.OnceValue(func() *textPatterns {
	return &textPatterns{
		// traps are amounts, percentages, sizes, phone numbers, references,
		// version numbers and time stamps. Text is lower case when they run.
		traps: []trap{
			{"$€£", regexp.MustCompile(`[$€£]\s?\d(?:[\d .,']*\d)?`)},                                                                  // $89.99, € 1 200
			{"", regexp.MustCompile(`\b\d{1,3}(?:[ .,'’]\d{3})*(?:[.,]\d+)?\s?(?:%|€|\$|£|(?:eur|usd|gbp|chf|kb|mb|gb|tb|units?)\b)`)}, // 1 200 eur, 12.5 %
			{"+", regexp.MustCompile(`\+\d[\d ().-]{6,}\d`)},                                                                           // +33 6 12 34 56 78
			{" ", regexp.MustCompile(`\b\d{3,4}(?: \d{2,4}){2,}\b`)},                                                                   // 0800 123 456
			{"#", regexp.MustCompile(`#\d+`)},                                                                                          // #4471
			{".", regexp.MustCompile(`\bv?\d+\.\d+\.\d{1,3}(?:\.\d+)*\b`)},                                                             // 2.4.1, not 24.12.2026
			{"ev", regexp.MustCompile(`\b(?:version|release|v)\s?\d+(?:\.\d+)*\b`)},                                                    // version 10.12
			// A time with seconds is a stamp — a log line, a file in a
			// commit, a quoted mail's Date header: when something happened,
			// never an appointment. The date, weekday and zone written
			// around it go with it.
			{":", regexp.MustCompile(`(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?` +
				`(?:\d{1,2}\s+[a-z]{3,9}\.?,?\s+\d{4}\s+|[a-z]{3,9}\.?\s+\d{1,2},?\s+(?:\d{4}\s+)?|\[?\d{4}[-/.]\d{1,2}[-/.]\d{1,2}[t\s]+|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\s+)?` +
				`(?:at\s+)?\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\]?(?:\s*[ap]\.?m\b\.?)?(?:\s*(?:[+-]\d{2}:?\d{2}\b|z\b|utc\b|gmt\b|\([a-z]{3,5}\)))?(?:\s+\d{4}\b)?`)}, // 2 oct 2002 13:19:28 -0000
		},

		// when reads 2026-12-15 as the time 12:15 and ignores 15.12.2026; both
		// are given to it as 15/12/2026, which it reads with the year.
		isoDate:    regexp.MustCompile(`\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b`),
		dottedDate: regexp.MustCompile(`\b(\d{1,2})\.(\d{1,2})\.((?:19|20)\d\d)\b`),

		// when takes the year in "15 December 2026" for a day and gives up, and
		// drops it from "December 15, 2026": the year is hidden and kept aside.
		monthYear: regexp.MustCompile(`(?i)\b` + en.MONTH_OFFSET_PATTERN +
			`(?:\s+\d{1,2}(?:st|nd|rd|th)?)?,?\s+((?:19|20)\d\d)\b`),

		clock: regexp.MustCompile(`(?i)\d\s*(?::\s*\d\d|\.\d\d\b|[ap]\.?\s?m\b|h\b|h\d\d|o'?clock)|\bat\s+\d{1,2}\b|\b(?:noon|midday|midnight)\b`),
	}
})

// prepare returns a stretch of text as the library should read it (same
// length, same offsets) and the explicit years found after month names, by
// offset.
func prepare(s string) (string, map[int]int) {
	// The library's expressions ignore case; ASCII lower case keeps every
	// offset and lets the rule gates compare bytes.
	s = asciiLower(s)
	if !hasDigit(s) {
		return s, nil
	}
	pt := patterns()
	b := []byte(s)
	for _, t := range pt.traps {
		if t.needs != "" && !strings.ContainsAny(s, t.needs) {
			continue
		}
		for _, m := range t.re.FindAllStringIndex(s, -1) {
			blank(b, m[0], m[1])
		}
	}
	s = string(b)
	if strings.Contains(s, "-") {
		s = pt.isoDate.ReplaceAllString(s, "$3/$2/$1")
	}
	if strings.Contains(s, ".") {
		s = pt.dottedDate.ReplaceAllStringFunc(s, func(m string) string {
			return strings.ReplaceAll(m, ".", "/")
		})
	}
	if !hasYear(s) {
		return s, nil
	}
	var years map[int]int
	b = []byte(s)
	for _, m := range pt.monthYear.FindAllStringSubmatchIndex(s, -1) {
		y, _ := strconv.Atoi(s[m[2]:m[3]])
		if years == nil {
			years = map[int]int{}
		}
		years[m[2]] = y
		// Commas, not spaces: after spaces the library would take the
		// next number ("09:00") for the day.
		for i := m[2]; i < m[3]; i++ {
			b[i] = ','
		}
	}
	return string(b), years
}

func blank(b []byte, from, to int) {
	for i := from; i < to; i++ {
		b[i] = ' '
	}
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// findDates returns the dates in one segment, in text order, resolved from
// ref in ref's location.
func findDates(seg string, ref time.Time) []hit {
	// The library keeps the reference's clock where the text names none;
	// odd seconds in the reference tell the two apart.
	base := time.Date(ref.Year(), ref.Month(), ref.Day(), ref.Hour(), ref.Minute(), 37, 0, ref.Location())
	p := dateParser()
	var hits []hit
	for _, w := range windows(seg) {
		s, years := prepare(seg[w[0]:w[1]])
		for off := 0; off < len(s) && hasTrigger(s[off:]); {
			r, err := p.Parse(s[off:], base)
			if err != nil || r == nil || len(r.Text) == 0 {
				break
			}
			start := off + r.Index
			off = start + len(r.Text)
			if bareWord(r.Text) {
				continue
			}
			h := hit{start: w[0] + start, end: w[0] + off, text: strings.TrimSpace(seg[w[0]+start : w[0]+off])}
			h = resolve(h, r.Time, base)
			if y, ok := yearAfter(years, off); ok && !h.yearSaid {
				h.at = time.Date(y, h.at.Month(), h.at.Day(), h.at.Hour(), h.at.Minute(), 0, 0, h.at.Location())
				h.yearSaid = true
			}
			// A day and month without a year that fell more than half a
			// year back means the next one ("Due date: 12 January", read in
			// November).
			if !h.yearSaid && h.at.Before(base.AddDate(0, -6, 0)) {
				h.at = h.at.AddDate(1, 0, 0)
			}
			hits = append(hits, h)
		}
	}
	return joinRanges(seg, hits, base)
}

// dayPart reads a hit of seg whose time of day the text does not write
// out ("tonight") as its day. A text names a time of day as "14:30",
// "2pm", "14h", "at 9", "noon". The library also gives "tonight" and
// "tomorrow morning" a time (23:00, 08:00): right for a snooze (When), but
// they name a part of a day, not an appointment.
func dayPart(h hit, seg string) hit {
	if h.timed && !patterns().clock.MatchString(seg[h.start:h.end]) {
		h.timed, h.at, h.until = false, dateOf(h.at), time.Time{}
	}
	return h
}

// resolve fills a hit from the time the library gave.
func resolve(h hit, t, base time.Time) hit {
	h.timed = t.Hour() != base.Hour() || t.Minute() != base.Minute() || t.Second() != base.Second()
	if h.timed {
		h.at = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, t.Location())
	} else {
		h.at = dateOf(t)
	}
	h.yearSaid = hasYear(h.text)
	return h
}

// windowPad is how far around a date word or number the library reads: its
// own matches chain parts at most 5 bytes apart, so a date expression never
// reaches further from its nearest trigger.
const windowPad = 16

// windows returns the stretches of s the library is given: around each
// number and date word, merged where they overlap, on word boundaries.
// Reading a sentence whole costs the library's dozen regular expressions
// over every byte of it.
func windows(s string) [][2]int {
	var out [][2]int
	flush := func(a, b int) {
		a, b = max(a-windowPad, 0), min(b+windowPad, len(s))
		for a > 0 && s[a-1] != ' ' {
			a--
		}
		for b < len(s) && s[b] != ' ' {
			b++
		}
		if n := len(out); n > 0 && a <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], b)
			return
		}
		out = append(out, [2]int{a, b})
	}
	eachWord(s, func(a, b int) {
		if w := s[a:b]; hasDigit(w) || dateWords[strings.ToLower(w)] {
			flush(a, b)
		}
	})
	return out
}

// hasTrigger reports a number or date word in s.
func hasTrigger(s string) bool {
	found := false
	eachWord(s, func(a, b int) {
		if w := s[a:b]; !found && (hasDigit(w) || dateWords[strings.ToLower(w)]) {
			found = true
		}
	})
	return found
}

// eachWord calls f with the bounds of every run of letters and digits.
func eachWord(s string, f func(a, b int)) {
	start := -1
	for i, r := range s {
		in := unicode.IsLetter(r) || unicode.IsDigit(r)
		if in && start < 0 {
			start = i
		}
		if !in && start >= 0 {
			f(start, i)
			start = -1
		}
	}
	if start >= 0 {
		f(start, len(s))
	}
}

// bareWord reports a match that is a lone month or weekday word: "May I
// ask", "I sat down", "the sun". A month alone names no day either.
func bareWord(text string) bool {
	w := strings.ToLower(strings.Trim(text, " \t.,;:!?()[]'\"-"))
	if strings.ContainsAny(w, " 0123456789") {
		return false
	}
	if _, ok := en.MONTH_OFFSET[w]; ok {
		return true
	}
	switch w {
	case "sat", "sun", "wed", "mon", "now":
		return true
	}
	return false
}

// hasYear reports a four-digit year in the matched text.
func hasYear(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			if run == 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// yearAfter finds a year kept aside just after a match ("15 December| 2026").
func yearAfter(years map[int]int, end int) (int, bool) {
	for pos, y := range years {
		if pos >= end && pos <= end+3 {
			return y, true
		}
	}
	return 0, false
}

// joinRanges merges what the library reports as separate matches but a
// reader sees as one: a date and the time that follows it in the sentence
// ("8 December from 2pm"), and a start and its end ("10:00–12:00", "2pm to
// 5pm").
func joinRanges(seg string, hits []hit, base time.Time) []hit {
	if len(hits) < 2 {
		return hits
	}
	today := dateOf(base)
	gap := func(a, b hit) string { return strings.ToLower(strings.TrimSpace(seg[a.end:b.start])) }
	out := hits[:0:0]
	for i := 0; i < len(hits); i++ {
		h := hits[i]
		if !h.timed && i+1 < len(hits) {
			n := hits[i+1]
			// The library leaves an unsaid date at the reference's; a time
			// later in the sentence is the time of the date said before it
			// ("Last Monday we met at 10:00").
			if n.timed && dateOf(n.at).Equal(today) {
				h.at = withClock(h.at, n.at)
				h.timed, h.end = true, n.end
				i++
			}
		}
		if h.timed && i+1 < len(hits) {
			n := hits[i+1]
			if end := withClock(h.at, n.at); n.timed && rangeWord(gap(h, n)) && end.After(h.at) {
				h.until, h.end = end, n.end
				i++
			}
		}
		out = append(out, h)
	}
	return out
}

// withClock is day's date at clock's time of day.
func withClock(day, clock time.Time) time.Time {
	return time.Date(day.Year(), day.Month(), day.Day(), clock.Hour(), clock.Minute(), 0, 0, day.Location())
}

func rangeWord(gap string) bool {
	switch gap {
	case "-", "–", "—", "to", "until", "till", "and":
		return true
	}
	return false
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}
