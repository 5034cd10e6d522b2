package ruleset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/scouts-hq/scouts/scouts/rules"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// FromTriage converts one of the old Gmail allow/deny rules into the
// grammar, meaning exactly what it meant: allow → show, deny → spam,
// ignore → skip; every list the rule fills must match (AND), any entry of
// a list may (OR):
//
//   - senders       → from in [...]
//   - domains       → domain in [...] or domain ends_with ".d" for each d
//     (a domain matched its subdomains)
//   - list_ids      → list_id in [...] (normalised ids)
//   - subject_words → subject contains_word w (whole words, any of them)
func FromTriage(r triage.Rule) (rules.Rule, error) {
	var clauses []any
	cond := func(field, op string, v any) map[string]any {
		return map[string]any{field: map[string]any{op: v}}
	}
	if len(r.Senders) > 0 {
		var l []string
		for _, s := range r.Senders {
			l = append(l, strings.ToLower(strings.TrimSpace(s)))
		}
		clauses = append(clauses, cond("from", "in", l))
	}
	if len(r.Domains) > 0 {
		var ds []string
		for _, d := range r.Domains {
			ds = append(ds, strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), ".")))
		}
		or := []any{cond("domain", "in", ds)}
		for _, d := range ds {
			or = append(or, cond("domain", "ends_with", "."+d))
		}
		clauses = append(clauses, map[string]any{"$or": or})
	}
	if len(r.ListIDs) > 0 {
		var l []string
		for _, id := range r.ListIDs {
			l = append(l, triage.NormalizeListID(id))
		}
		clauses = append(clauses, cond("list_id", "in", l))
	}
	if len(r.SubjectWords) > 0 {
		var or []any
		for _, w := range r.SubjectWords {
			or = append(or, cond("subject", "contains_word", strings.ToLower(strings.TrimSpace(w))))
		}
		if len(or) == 1 {
			clauses = append(clauses, or[0])
		} else {
			clauses = append(clauses, map[string]any{"$or": or})
		}
	}
	var when any
	switch len(clauses) {
	case 0:
		return rules.Rule{}, fmt.Errorf("ruleset: gmail rule %s matches nothing", r.ID)
	case 1:
		when = clauses[0]
	default:
		when = map[string]any{"$and": clauses}
	}
	raw, err := json.Marshal(when)
	if err != nil {
		return rules.Rule{}, fmt.Errorf("ruleset: gmail rule %s: %w", r.ID, err)
	}
	verdict := map[triage.Action]rules.Verdict{triage.Allow: rules.Show, triage.Deny: rules.Spam, triage.Ignore: rules.Skip}[r.Action]
	if verdict == "" {
		return rules.Rule{}, fmt.Errorf("ruleset: gmail rule %s: unknown action %q", r.ID, r.Action)
	}
	return rules.Rule{ID: r.ID, Name: "Gmail " + string(r.Action) + " rule (migrated)", When: raw, Then: rules.Then{Verdict: verdict}}, nil
}

// ForTriage compiles a scout's rules down to the Gmail triage's allow/deny
// rules, which the relay applies to relay-triaged mail before anything
// else (and the desktop's own Gmail pipeline too, so that spam a rule
// denies is trashed when the scout trashes spam). It takes the longest
// run of enabled rules from the top that the triage can express, and stops
// at the first it cannot: the first match there is then the first match
// here. The rules after it (desktopOnly, by id) apply on the desktop when
// the card arrives.
func ForTriage(rs []rules.Rule) (out []triage.Rule, desktopOnly []string) {
	stopped := false
	for _, r := range rs {
		if !r.IsEnabled() {
			continue
		}
		if !stopped {
			if t, ok := ToTriage(r); ok {
				out = append(out, t)
				continue
			}
			stopped = true
		}
		desktopOnly = append(desktopOnly, r.ID)
	}
	return out, desktopOnly
}

// ToTriage converts a rule into a triage rule when the triage can express
// it exactly: an AND of at most one clause each of from equals/in,
// domain "in the domains or their subdomains" (the shape FromTriage
// writes), list_id equals/in and subject contains_word (single words, or
// an $or of them), all case-insensitive, with verdict show, spam, skip or
// screen (the triage's ignore, which lands in Screened too).
func ToTriage(r rules.Rule) (triage.Rule, bool) {
	action := map[rules.Verdict]triage.Action{rules.Show: triage.Allow, rules.Spam: triage.Deny,
		rules.Skip: triage.Ignore, rules.Screen: triage.Ignore}[r.Then.Verdict]
	if action == "" {
		return triage.Rule{}, false
	}
	var when any
	dec := json.NewDecoder(bytes.NewReader(r.When))
	if dec.Decode(&when) != nil {
		return triage.Rule{}, false
	}
	t := triage.Rule{ID: r.ID, Action: action}
	var clauses []any
	obj, ok := when.(map[string]any)
	if !ok {
		return triage.Rule{}, false
	}
	if and, ok := obj["$and"].([]any); ok && len(obj) == 1 {
		clauses = and
	} else {
		for k, v := range obj {
			clauses = append(clauses, map[string]any{k: v})
		}
	}
	seen := map[string]bool{}
	for _, c := range clauses {
		field, vals, ok := triageClause(c)
		if !ok || seen[field] {
			return triage.Rule{}, false
		}
		seen[field] = true
		switch field {
		case "from":
			t.Senders = vals
		case "domain":
			t.Domains = vals
		case "list_id":
			t.ListIDs = vals
		case "subject":
			t.SubjectWords = vals
		}
	}
	if t.Validate() != nil {
		return triage.Rule{}, false
	}
	return t, true
}

// triageClause recognises one clause the triage can express.
func triageClause(c any) (field string, vals []string, ok bool) {
	obj, ok := c.(map[string]any)
	if !ok || len(obj) != 1 {
		return "", nil, false
	}
	for k, v := range obj {
		switch k {
		case "from", "list_id":
			vals, ok = equalsOrIn(v)
			return k, vals, ok
		case "subject":
			w, ok := singleOp(v, "contains_word")
			if !ok || !isWord(w) {
				return "", nil, false
			}
			return k, []string{w}, true
		case "$or":
			return orClause(v)
		}
	}
	return "", nil, false
}

// orClause recognises subject words (an $or of contains_word) and the
// domains-with-subdomains shape.
func orClause(v any) (string, []string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return "", nil, false
	}
	var words, domains, suffixes []string
	for _, e := range list {
		obj, ok := e.(map[string]any)
		if !ok || len(obj) != 1 {
			return "", nil, false
		}
		switch {
		case obj["subject"] != nil:
			w, ok := singleOp(obj["subject"], "contains_word")
			if !ok || !isWord(w) {
				return "", nil, false
			}
			words = append(words, w)
		case obj["domain"] != nil:
			if s, ok := singleOp(obj["domain"], "ends_with"); ok && strings.HasPrefix(s, ".") {
				suffixes = append(suffixes, strings.ToLower(s[1:]))
				continue
			}
			ds, ok := equalsOrIn(obj["domain"])
			if !ok {
				return "", nil, false
			}
			for _, d := range ds {
				domains = append(domains, strings.ToLower(d))
			}
		default:
			return "", nil, false
		}
	}
	switch {
	case len(words) > 0 && len(domains)+len(suffixes) == 0:
		return "subject", words, true
	case len(words) == 0 && len(domains) > 0:
		// The triage's domain matches itself and its subdomains: only
		// the rule that says both for the same domains is the same rule.
		slices.Sort(domains)
		slices.Sort(suffixes)
		if slices.Equal(slices.Compact(domains), slices.Compact(suffixes)) {
			return "domain", slices.Compact(domains), true
		}
	}
	return "", nil, false
}

// equalsOrIn reads {"equals": s} or {"in": [s, …]}, case-insensitive.
func equalsOrIn(v any) ([]string, bool) {
	if s, ok := singleOp(v, "equals"); ok {
		return []string{s}, true
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return nil, false
	}
	list, ok := obj["in"].([]any)
	if !ok {
		return nil, false
	}
	var out []string
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, len(out) > 0
}

// singleOp reads a condition holding one string operator and nothing else
// (no case_sensitive).
func singleOp(v any, op string) (string, bool) {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return "", false
	}
	s, ok := obj[op].(string)
	return s, ok
}

// isWord reports a single word of letters and digits, as the triage's
// subject words are.
func isWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) < 0
}
