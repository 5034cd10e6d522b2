package datecompare

import (
	"regexp"
	"strings"
	"time"
	"unicode"
)

// The masking scouts/cue puts in front of its date library (a copy of
// its traps, kept in step by hand): split into sentences, blank out numbers
// that are known not to be dates (amounts, percentages, sizes, phone
// numbers, references, versions), and skip sentences with neither a digit
// nor a date word. It is applied to every candidate alike.
var traps = []*regexp.Regexp{
	regexp.MustCompile(`[$€£]\s?\d(?:[\d .,']*\d)?`),
	regexp.MustCompile(`(?i)\b\d{1,3}(?:[ .,'’]\d{3})*(?:[.,]\d+)?\s?(?:%|€|\$|£|(?:eur|usd|gbp|chf|kb|mb|gb|tb|units?)\b)`),
	regexp.MustCompile(`\+\d[\d ().-]{6,}\d`),
	regexp.MustCompile(`\b\d{3,4}(?: \d{2,4}){2,}\b`),
	regexp.MustCompile(`#\d+`),
	regexp.MustCompile(`(?i)\bv?\d+\.\d+\.\d{1,3}(?:\.\d+)*\b`),
	regexp.MustCompile(`(?i)\b(?:version|release|v)\s?\d+(?:\.\d+)*\b`),
}

var dateWords = regexp.MustCompile(`(?i)\d|\b(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|today|tonight|tomorrow|yesterday|noon|midnight|week|weekend|month|year|morning|afternoon|evening|eod)`)

func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := false
		switch c {
		case '\n':
			end = true
		case '.', '!', '?':
			// A sentence ends at a stop followed by a space and a capital,
			// not inside "Dec. 12" or "4.50".
			if i+2 < len(text) && text[i+1] == ' ' && unicode.IsUpper(rune(text[i+2])) {
				end = true
			}
		}
		if end {
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func mask(s string) string {
	for _, t := range traps {
		s = t.ReplaceAllStringFunc(s, func(m string) string { return strings.Repeat(" ", len(m)) })
	}
	return s
}

func withMasking(f finder) finder {
	return func(text string, ref time.Time) []hit {
		var hits []hit
		for _, s := range sentences(text) {
			s = mask(s)
			if !dateWords.MatchString(s) {
				continue
			}
			hits = append(hits, f(s, ref)...)
		}
		return hits
	}
}
