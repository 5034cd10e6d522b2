package localdb

import (
	"strings"
	"time"
	"unicode"

	"github.com/scouts-hq/scouts/scouts"
)

// Search result types, as the API names them.
const (
	SearchCard    = "card"
	SearchTask    = "task"
	SearchNote    = "note"
	SearchEvent   = "event"
	SearchProject = "project"
)

// searchTypes are the result types in their index code order (rowid & 7,
// migration 0014).
var searchTypes = []string{SearchCard, SearchTask, SearchNote, SearchEvent, SearchProject}

// SearchQuery is a parsed search: the words for the index and the filters
// on the rows it finds.
type SearchQuery struct {
	// Match is the FTS5 expression of the words, phrases and from:
	// filters; empty when the query is filters alone.
	Match string
	// Words are the words looked for (not those left out nor from:'s),
	// lower case, for the snippets.
	Words []string
	// Types are the types kind: asked for; nil: every type. Filters that
	// apply to one type narrow it further (Search: lane: and is:pending
	// find cards alone, is:done tasks and projects).
	Types map[string]bool
	Lanes []scouts.Lane
	// Statuses of cards (is:pending …).
	Statuses []scouts.Status
	// Done filters tasks and projects (is:done, is:open); nil: both.
	Done   *bool
	Scouts []string // names or ids, as typed
	// Before and After bound the row's date: before is exclusive, after
	// inclusive (after:2026-05-01 includes that day, as in Gmail).
	Before, After time.Time
}

// filterHelp is what a refused filter's error names.
const filterHelp = "filters are from:, kind:, lane:, scout:, before:, after: and is: (put text in quotes to search for it as it is)"

// ParseSearch parses a search as a person types it: words (each matching
// as a prefix), "quoted phrases" (matched as they are), -word to exclude,
// and filters from:, kind:, lane:, scout:, before:/after: (dates, in loc)
// and is:. A filter that cannot be understood is an EInvalid error that
// says why.
func ParseSearch(q string, loc *time.Location) (SearchQuery, error) {
	var sq SearchQuery
	var must, mustNot []string
	for _, tok := range splitSearch(q) {
		if !tok.quoted {
			// "Re:" is a word; "foo:bar" a filter mistyped.
			if key, val, ok := strings.Cut(tok.text, ":"); ok && isFilterKey(key) && (val != "" || knownFilters[strings.ToLower(key)]) {
				if err := sq.filter(strings.ToLower(key), val, tok.valueQuoted, loc, &must); err != nil {
					return sq, err
				}
				continue
			}
		}
		neg := false
		text := tok.text
		if !tok.quoted && strings.HasPrefix(text, "-") && len(text) > 1 {
			neg, text = true, text[1:]
		}
		term := ftsTerm(text, !tok.quoted)
		if term == "" {
			continue
		}
		if neg {
			mustNot = append(mustNot, term)
		} else {
			must = append(must, term)
			for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				sq.Words = append(sq.Words, w)
			}
		}
	}
	if len(must) == 0 && len(mustNot) > 0 {
		return sq, scouts.Errorf(scouts.EInvalid, "a search cannot only leave words out: add a word or a filter to look for")
	}
	if len(must) > 0 {
		sq.Match = strings.Join(must, " AND ")
		for _, t := range mustNot {
			sq.Match = "(" + sq.Match + ") NOT " + t
		}
	}
	if sq.Match == "" && sq.Types == nil && len(sq.Lanes) == 0 && len(sq.Statuses) == 0 && sq.Done == nil &&
		len(sq.Scouts) == 0 && sq.Before.IsZero() && sq.After.IsZero() {
		return sq, scouts.Errorf(scouts.EInvalid, "nothing to search for: type a word or a filter (%s)", filterHelp)
	}
	if !sq.Before.IsZero() && !sq.After.IsZero() && !sq.After.Before(sq.Before) {
		return sq, scouts.Errorf(scouts.EInvalid, "after: %s is not before before: %s, so nothing can match",
			sq.After.Format(time.DateOnly), sq.Before.Format(time.DateOnly))
	}
	return sq, nil
}

// isFilterKey says whether key: is meant as a filter: any word of letters
// alone is, so that a mistyped filter is refused rather than searched for.
func isFilterKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

var knownFilters = map[string]bool{"from": true, "kind": true, "lane": true, "scout": true, "before": true, "after": true, "is": true}

func (sq *SearchQuery) filter(key, val string, quoted bool, loc *time.Location, must *[]string) error {
	if !knownFilters[key] {
		return scouts.Errorf(scouts.EInvalid, "unknown filter %s: — %s", key, filterHelp)
	}
	if val == "" {
		return scouts.Errorf(scouts.EInvalid, "%s: needs a value, as in %s", key, map[string]string{
			"from": "from:ana", "kind": "kind:task", "lane": "lane:spam", "scout": "scout:work",
			"before": "before:2026-05-31", "after": "after:2026-05-01", "is": "is:pending"}[key]+" ("+filterHelp+")")
	}
	lower := strings.ToLower(val)
	switch key {
	case "from":
		term := ftsTerm(val, !quoted)
		if term == "" {
			return scouts.Errorf(scouts.EInvalid, "from:%s names nobody: give part of a name or an address", val)
		}
		*must = append(*must, "sender : "+term)
	case "kind":
		t := strings.TrimSuffix(lower, "s")
		if t == "mail" || t == "suggestion" {
			t = SearchCard
		}
		if !containsStr(searchTypes, t) {
			return scouts.Errorf(scouts.EInvalid, "kind:%s is not a kind: use card, task, note, event or project", val)
		}
		sq.allow(t)
	case "lane":
		l := scouts.Lane(lower)
		if l != scouts.LaneInbox && l != scouts.LaneScreened && l != scouts.LaneSpam {
			return scouts.Errorf(scouts.EInvalid, "lane:%s is not a lane: use inbox, screened or spam", val)
		}
		sq.Lanes = append(sq.Lanes, l)
	case "scout":
		sq.Scouts = append(sq.Scouts, val)
	case "before", "after":
		d, err := parseSearchDate(val, loc)
		if err != nil {
			return scouts.Errorf(scouts.EInvalid, "%s:%s is not a date: write it as 2026-05-31", key, val)
		}
		if key == "before" {
			if !sq.Before.IsZero() {
				return scouts.Errorf(scouts.EInvalid, "before: is given twice")
			}
			sq.Before = d
		} else {
			if !sq.After.IsZero() {
				return scouts.Errorf(scouts.EInvalid, "after: is given twice")
			}
			sq.After = d
		}
	case "is":
		switch lower {
		case "pending", "approved", "rejected", "expired":
			sq.Statuses = append(sq.Statuses, scouts.Status(lower))
		case "done", "open":
			done := lower == "done"
			if sq.Done != nil && *sq.Done != done {
				return scouts.Errorf(scouts.EInvalid, "is:done and is:open together match nothing")
			}
			sq.Done = &done
		default:
			return scouts.Errorf(scouts.EInvalid, "is:%s is not a state: use pending, approved, rejected, expired (cards), done or open (tasks and projects)", val)
		}
	default:
		return scouts.Errorf(scouts.EInvalid, "unknown filter %s: — %s", key, filterHelp)
	}
	return nil
}

// allow adds t to the types kind: asked for: kind:task kind:note asks for
// both.
func (sq *SearchQuery) allow(t string) {
	if sq.Types == nil {
		sq.Types = map[string]bool{}
	}
	sq.Types[t] = true
}

func parseSearchDate(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.Local
	}
	s = strings.ReplaceAll(s, "/", "-")
	return time.ParseInLocation(time.DateOnly, s, loc)
}

type searchToken struct {
	text        string
	quoted      bool // the whole token was in quotes: a phrase
	valueQuoted bool // key:"a value"
}

// splitSearch splits on spaces, keeping "quoted text" (also after a
// filter's colon, as in scout:"Work mail") together.
func splitSearch(q string) []searchToken {
	var out []searchToken
	var cur strings.Builder
	var tok searchToken
	inQuote, started := false, false
	flush := func() {
		if started {
			tok.text = cur.String()
			out = append(out, tok)
		}
		cur.Reset()
		tok = searchToken{}
		started = false
	}
	for _, r := range q {
		switch {
		case r == '"':
			if !inQuote {
				if !started {
					tok.quoted = true
				} else if strings.HasSuffix(cur.String(), ":") {
					tok.valueQuoted = true
				}
			}
			inQuote = !inQuote
			started = true
		case unicode.IsSpace(r) && !inQuote:
			flush()
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	flush()
	return out
}

// ftsTerm makes text one FTS5 phrase, its last word a prefix when prefix
// is set. Text without a letter or digit is no term at all: the tokenizer
// would make it an empty phrase.
func ftsTerm(text string, prefix bool) string {
	if strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	t := `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
	// A one-letter prefix would match most of the index, and FTS5 keeps
	// no prefix index for it: such a word matches as it is.
	if prefix && len([]rune(strings.TrimFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))) > 1 {
		t += " *"
	}
	return t
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
