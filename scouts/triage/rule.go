package triage

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
)

// Action is what a rule does to the mail it matches.
type Action string

const (
	// Allow makes the mail relevant, whatever the heuristics or the model
	// would say: the way to rescue a sender the heuristics dislike.
	Allow Action = "allow"
	// Deny treats the mail as spam (no card; trashed if the scout trashes
	// spam).
	Deny Action = "deny"
	// Ignore skips the mail: no card, the mail is left alone. For
	// newsletters one wants to keep but not to act on.
	Ignore Action = "ignore"
)

// Limits on rules, so that a definition stays readable and matching stays
// cheap.
const (
	MaxRules         = 500
	MaxRuleEntries   = 200 // per list (senders, domains, …) of one rule
	MaxRuleEntryLen  = 254 // the longest mail address
	maxRuleIDLen     = 64
	ruleConfidence   = 1.0
	ruleReasonPrefix = "Your rule "
)

// Rule is a simple allow/deny/ignore rule. A rule matches a mail when every
// list it fills matches (senders AND domains AND …); a list matches when
// any of its entries does. Rules are tried in order and the first match
// decides, so put exceptions before the general rule.
type Rule struct {
	ID     string `json:"id"`
	Action Action `json:"action"`
	// Senders are full addresses, compared case-insensitively.
	Senders []string `json:"senders,omitempty"`
	// Domains match the sender's domain and its subdomains: "example.com"
	// matches "mail.example.com" but not "badexample.com".
	Domains []string `json:"domains,omitempty"`
	// ListIDs match the List-Id header's id ("dev.lists.example.org"),
	// compared case-insensitively, with or without angle brackets.
	ListIDs []string `json:"list_ids,omitempty"`
	// SubjectWords match whole words of the subject, case-insensitively.
	SubjectWords []string `json:"subject_words,omitempty"`
}

// Validate checks one rule and says precisely what is wrong.
func (r Rule) Validate() error {
	if r.ID == "" {
		return scouts.Errorf(scouts.EInvalid, "rule id is required")
	}
	if len(r.ID) > maxRuleIDLen || !isRuleID(r.ID) {
		return scouts.Errorf(scouts.EInvalid, "rule id %q must be 1 to %d letters, digits, '-' or '_'", clipForMessage(r.ID), maxRuleIDLen)
	}
	switch r.Action {
	case Allow, Deny, Ignore:
	case "":
		return scouts.Errorf(scouts.EInvalid, "rule %s: action is required (allow, deny or ignore)", r.ID)
	default:
		return scouts.Errorf(scouts.EInvalid, "rule %s: unknown action %q (want allow, deny or ignore)", r.ID, clipForMessage(string(r.Action)))
	}
	if len(r.Senders)+len(r.Domains)+len(r.ListIDs)+len(r.SubjectWords) == 0 {
		return scouts.Errorf(scouts.EInvalid, "rule %s matches nothing: give at least one sender, domain, list id or subject word", r.ID)
	}
	lists := []struct {
		name    string
		entries []string
		check   func(string) string
	}{
		{"senders", r.Senders, checkSender},
		{"domains", r.Domains, checkDomain},
		{"list_ids", r.ListIDs, checkListID},
		{"subject_words", r.SubjectWords, checkWord},
	}
	for _, l := range lists {
		if len(l.entries) > MaxRuleEntries {
			return scouts.Errorf(scouts.EInvalid, "rule %s: %s has %d entries, more than %d", r.ID, l.name, len(l.entries), MaxRuleEntries)
		}
		for i, e := range l.entries {
			if len(e) > MaxRuleEntryLen {
				return scouts.Errorf(scouts.EInvalid, "rule %s: %s[%d] is longer than %d bytes", r.ID, l.name, i, MaxRuleEntryLen)
			}
			if problem := l.check(e); problem != "" {
				return scouts.Errorf(scouts.EInvalid, "rule %s: %s[%d] %q %s", r.ID, l.name, i, clipForMessage(e), problem)
			}
		}
	}
	return nil
}

// ValidateRules checks every rule and that ids are unique.
func ValidateRules(rules []Rule) error {
	if len(rules) > MaxRules {
		return scouts.Errorf(scouts.EInvalid, "%d rules, more than the %d allowed", len(rules), MaxRules)
	}
	seen := make(map[string]bool, len(rules))
	for i, r := range rules {
		if err := r.Validate(); err != nil {
			return err
		}
		if seen[r.ID] {
			return scouts.Errorf(scouts.EInvalid, "rule id %s is used twice (rule %d)", r.ID, i+1)
		}
		seen[r.ID] = true
	}
	return nil
}

func isRuleID(s string) bool {
	for _, c := range s {
		if !(c == '-' || c == '_' || c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c))) {
			return false
		}
	}
	return true
}

func checkSender(s string) string {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || !strings.EqualFold(a.Address, strings.TrimSpace(s)) {
		return "is not a bare mail address (like someone@example.com)"
	}
	return ""
}

func checkDomain(s string) string {
	d := strings.TrimSuffix(s, ".")
	switch {
	case strings.Contains(d, "@"):
		return "is an address; put it in senders, or keep only the part after @"
	case !strings.Contains(d, "."):
		return "is not a domain (like example.com)"
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return "is not a domain (like example.com)"
		}
		for _, c := range label {
			if !(c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c > unicode.MaxASCII && unicode.IsLetter(c)) {
				return "is not a domain (like example.com)"
			}
		}
	}
	return ""
}

func checkListID(s string) string {
	id := NormalizeListID(s)
	if id == "" || strings.ContainsAny(id, " \t<>\"") {
		return "is not a list id (the part in angle brackets of List-Id, like dev.lists.example.org)"
	}
	return ""
}

func checkWord(s string) string {
	w := strings.TrimSpace(s)
	switch {
	case w == "":
		return "is empty"
	case strings.IndexFunc(w, unicode.IsSpace) >= 0:
		return "has spaces; give one word per entry"
	case len(words(w)) != 1:
		return "is not a word (letters and digits)"
	}
	return ""
}

// NormalizeListID reduces a List-Id value ("Name <id>", "<id>" or "id") to
// the lower-case id that rules compare.
func NormalizeListID(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j > 0 {
			s = s[i+1 : i+j]
		}
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// clipForMessage keeps error messages short when the input is long.
func clipForMessage(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
