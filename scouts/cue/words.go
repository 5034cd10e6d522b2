package cue

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cue words, lower case. They are few and plain on purpose: they only have
// to be right before the learner knows the user, and every one that fires is
// shown on the card.
var (
	// deadlineWords anywhere in a sentence make its date a due date.
	deadlineWords = set("due", "deadline", "deadlines", "overdue", "pay", "payment", "invoice",
		"expires", "expiry", "submit")
	// byWords make a date a due date when they come just before it.
	byWords = set("by", "before", "until", "till")
	// meetingWords in a sentence make its date an event.
	meetingWords = set("meeting", "meet", "call", "appointment", "invitation", "invite", "invited",
		"sync", "standup", "stand-up", "lunch", "dinner", "breakfast", "coffee", "interview",
		"webinar", "conference", "workshop", "party", "session", "demo", "visit", "flight",
		"departs", "seminar", "reception", "ceremony", "concert", "rehearsal", "catch-up")
	// actionWords ask the reader to do something wherever they are.
	actionWords = set("please", "invoice", "due", "deadline", "asap", "urgent", "reminder", "todo",
		"to-do", "kindly", "overdue")
	// imperatives ask for action when they open a sentence.
	imperatives = set("pay", "send", "review", "sign", "submit", "book", "renew", "confirm",
		"update", "fix", "check", "finish", "prepare", "complete", "return", "reply", "approve",
		"schedule", "order", "buy", "call", "remember", "remind", "fill", "read", "write",
		"contact", "follow", "organise", "organize", "file", "register", "cancel", "don't")
	// askPhrases ask for action: "could you …".
	askPhrases = [][2]string{{"could", "you"}, {"can", "you"}, {"would", "you"}, {"need", "you"},
		{"let", "me"}, {"action", "required"}}
	// dateWords are the words the date library can read; only the text
	// around them and around numbers is given to it.
	dateWords = set("monday", "mon", "tuesday", "tue", "tues", "wednesday", "wed", "thursday",
		"thu", "thur", "thurs", "friday", "fri", "saturday", "sat", "sunday", "sun",
		"january", "jan", "february", "feb", "march", "mar", "april", "apr", "may", "june",
		"jun", "july", "jul", "august", "aug", "september", "sep", "sept", "october", "oct",
		"november", "nov", "december", "dec", "today", "tonight", "tomorrow", "tmr",
		"yesterday", "morning", "afternoon", "evening", "noon", "midnight", "night",
		"seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks",
		"month", "months", "year", "years", "ago")
	// documentExts are file types that hold a document rather than a request.
	documentExts = set(".pdf", ".doc", ".docx", ".odt", ".rtf", ".md", ".txt", ".tex", ".epub", ".pages")
)

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// words splits s into lower-case words; apostrophes and hyphens inside a
// word are kept ("don't", "stand-up"), a trailing "'s" is dropped. The
// words share one lower-case copy of s.
func words(s string) []string {
	lower := asciiLower(s)
	var out []string
	start := -1
	for i, r := range lower {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) ||
			(start >= 0 && (r == '\'' || r == '’' || r == '-'))
		if inWord && start < 0 {
			start = i
		}
		if !inWord && start >= 0 {
			out = append(out, word(lower[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word(lower[start:]))
	}
	return out
}

func word(w string) string {
	w = strings.TrimRight(w, "'’-")
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if strings.ContainsRune(w, '’') {
		w = strings.ReplaceAll(w, "’", "'")
	}
	if !isASCII(w) {
		w = strings.ToLower(w)
	}
	return w
}

// asciiLower lower-cases ASCII letters only, so every offset stays.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// countWords counts words the way a reader would: runs of letters or digits.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// sentences splits text into lines and sentences. A stop ends a sentence
// only before a space and a capital, so "Dec. 12" and "4.50" stay whole.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		end := false
		switch text[i] {
		case '\n':
			end = true
		case '.', '!', '?':
			if i+2 < len(text) && text[i+1] == ' ' {
				r, _ := utf8.DecodeRuneInString(text[i+2:])
				end = unicode.IsUpper(r)
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

// containsWords reports whether the lower-case haystack holds needle as
// whole words (a letter or digit on neither side).
func containsWords(haystack, needle string) bool {
	for from := 0; ; {
		i := strings.Index(haystack[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(haystack[:i])
		after, _ := utf8.DecodeRuneInString(haystack[i+len(needle):])
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		from = i + 1
	}
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// collapse lower-cases s and makes every run of white space one space, so
// that a project name matches across a line break.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
