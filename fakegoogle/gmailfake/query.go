package gmailfake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// term is one condition of a Gmail search; a query is their conjunction.
type term struct {
	neg   bool
	match func(m *message) bool
	// spamTrash is set by terms that name SPAM or TRASH, which lifts the
	// default exclusion of those folders, as in Gmail.
	spamTrash bool
}

// pst is the zone Gmail reads YYYY/MM/DD dates in.
var pst = func() *time.Location {
	if l, err := time.LoadLocation("America/Los_Angeles"); err == nil {
		return l
	}
	return time.FixedZone("PST", -8*3600)
}()

// parseQuery supports the operators a triage client needs: after:,
// before:, older:, newer: (epoch seconds or YYYY/MM/DD, after inclusive,
// before exclusive), newer_than:/older_than: (Nd, Nm, Ny), in:, is:,
// label:, category:, from:, to:, cc:, subject:, rfc822msgid:,
// has:attachment, "-" for negation and free text. OR, braces and parentheses are refused rather
// than answered wrongly.
func parseQuery(q string, mb *mailbox, now time.Time) ([]term, error) {
	var terms []term
	for _, tok := range tokenize(q) {
		if tok == "OR" || strings.ContainsAny(tok, "{}()") {
			return nil, fmt.Errorf("gmailfake does not support %q in q", tok)
		}
		t := term{}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			t.neg, tok = true, tok[1:]
		}
		op, val, hasOp := strings.Cut(tok, ":")
		op = strings.ToLower(op)
		val = strings.Trim(val, `"`)
		if !hasOp || val == "" {
			op, val = "", strings.Trim(tok, `"`)
		}
		switch op {
		case "after", "before", "newer", "older":
			at, err := parseDate(val)
			if err != nil {
				return nil, err
			}
			ms := at.UnixMilli()
			if op == "after" || op == "newer" {
				t.match = func(m *message) bool { return m.internalDate >= ms }
			} else {
				t.match = func(m *message) bool { return m.internalDate < ms }
			}
		case "newer_than", "older_than":
			d, err := parseAge(val, now)
			if err != nil {
				return nil, err
			}
			ms := d.UnixMilli()
			if op == "newer_than" {
				t.match = func(m *message) bool { return m.internalDate >= ms }
			} else {
				t.match = func(m *message) bool { return m.internalDate < ms }
			}
		case "in", "label", "is", "category":
			lv := strings.ToLower(val)
			if op == "in" && lv == "anywhere" {
				t.match, t.spamTrash = func(*message) bool { return true }, true
				break
			}
			if op == "is" && lv == "read" {
				t.match = func(m *message) bool { return !m.has("UNREAD") }
				break
			}
			if op == "category" {
				val = "CATEGORY_" + map[string]string{"primary": "personal"}[lv]
				if val == "CATEGORY_" {
					val += lv
				}
			}
			id, ok := mb.labelByName(val)
			if !ok {
				// Gmail matches nothing for an unknown label; so does the fake.
				t.match = func(*message) bool { return false }
				break
			}
			t.match = func(m *message) bool { return m.has(id) }
			t.spamTrash = id == "SPAM" || id == "TRASH"
		case "from", "to", "cc", "subject":
			name, lv := op, strings.ToLower(val)
			t.match = func(m *message) bool { return strings.Contains(strings.ToLower(m.payload.header(name)), lv) }
		case "rfc822msgid":
			// The Message-ID header, exactly, with or without its brackets.
			want := strings.Trim(val, "<>")
			t.match = func(m *message) bool {
				return strings.Trim(strings.TrimSpace(m.payload.header("Message-ID")), "<>") == want
			}
		case "has":
			if strings.ToLower(val) != "attachment" {
				return nil, fmt.Errorf("gmailfake does not support has:%s", val)
			}
			t.match = func(m *message) bool { return hasAttachment(m.payload) }
		default:
			lv := strings.ToLower(val)
			t.match = func(m *message) bool {
				p := m.payload
				hay := p.header("Subject") + "\n" + p.header("From") + "\n" + p.header("To") + "\n" + plainText(p)
				return strings.Contains(strings.ToLower(hay), lv)
			}
		}
		if t.neg {
			t.spamTrash = false
		}
		terms = append(terms, t)
	}
	return terms, nil
}

func hasAttachment(p *part) bool {
	if p.parts == nil {
		return p.filename != ""
	}
	return slices.ContainsFunc(p.parts, hasAttachment)
}

// tokenize splits on spaces outside double quotes.
func tokenize(q string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case (r == ' ' || r == '\t') && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func parseDate(v string) (time.Time, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	for _, layout := range []string{"2006/01/02", "2006/1/2", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, pst); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad date %q in q (want epoch seconds or YYYY/MM/DD)", v)
}

func parseAge(v string, now time.Time) (time.Time, error) {
	if len(v) < 2 {
		return time.Time{}, fmt.Errorf("bad age %q in q", v)
	}
	n, err := strconv.Atoi(v[:len(v)-1])
	if err != nil {
		return time.Time{}, fmt.Errorf("bad age %q in q", v)
	}
	switch v[len(v)-1] {
	case 'd':
		return now.AddDate(0, 0, -n), nil
	case 'm':
		return now.AddDate(0, -n, 0), nil
	case 'y':
		return now.AddDate(-n, 0, 0), nil
	}
	return time.Time{}, fmt.Errorf("bad age %q in q (units d, m, y)", v)
}
