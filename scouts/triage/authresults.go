package triage

import (
	"strings"
)

// AuthResult is one "method=result" entry of an Authentication-Results
// header (RFC 8601), with the comments that followed it: Gmail writes the
// DMARC policy there ("dmarc=fail (p=REJECT sp=NONE dis=QUARANTINE)").
type AuthResult struct {
	Method  string // lower case: spf, dkim, dmarc, arc, …
	Result  string // lower case: pass, fail, softfail, none, …
	Comment string // the parenthesised comments, lower case, joined by spaces
	Props   string // the rest ("header.from=example.com"), lower case
}

// AuthResults is a parsed Authentication-Results header.
type AuthResults struct {
	ServID  string // the server that wrote the header (Gmail: mx.google.com)
	Results []AuthResult
}

// ParseAuthResults reads one Authentication-Results value. It is lenient:
// what it cannot read it leaves out, and a header with no results gives an
// empty AuthResults.
func ParseAuthResults(v string) AuthResults {
	var ar AuthResults
	parts := splitOutsideComments(v, ';')
	if len(parts) == 0 {
		return ar
	}
	id, _ := stripComments(parts[0])
	if f := strings.Fields(id); len(f) > 0 {
		ar.ServID = strings.ToLower(f[0])
	}
	for _, p := range parts[1:] {
		text, comment := stripComments(p)
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		method, result, ok := strings.Cut(f[0], "=")
		if !ok {
			continue // "none" (no checks were made) or junk
		}
		// A method may carry a version: "dkim/1=pass".
		method, _, _ = strings.Cut(method, "/")
		ar.Results = append(ar.Results, AuthResult{
			Method:  strings.ToLower(method),
			Result:  strings.ToLower(result),
			Comment: strings.ToLower(comment),
			Props:   strings.ToLower(strings.Join(f[1:], " ")),
		})
	}
	return ar
}

// Has reports whether some result of the method equals result.
func (ar AuthResults) Has(method, result string) bool {
	for _, r := range ar.Results {
		if r.Method == method && r.Result == result {
			return true
		}
	}
	return false
}

// DMARCPolicy returns the sender domain's published DMARC policy and the
// disposition the receiver applied, as the receiver recorded them ("reject",
// "quarantine", "none" or ""). Gmail writes "(p=REJECT sp=NONE dis=NONE)"
// in the comment; other receivers use a "policy.dmarc=" property.
func (ar AuthResults) DMARCPolicy() (policy, disposition string) {
	for _, r := range ar.Results {
		if r.Method != "dmarc" {
			continue
		}
		if policy == "" {
			policy = fieldValue(r.Comment, "p=")
		}
		if policy == "" {
			policy = fieldValue(r.Props, "policy.dmarc=")
		}
		if disposition == "" {
			disposition = fieldValue(r.Comment, "dis=")
		}
	}
	return policy, disposition
}

// fieldValue finds "key" at a word start in s and returns the word after it.
func fieldValue(s, key string) string {
	for from := 0; ; {
		i := strings.Index(s[from:], key)
		if i < 0 {
			return ""
		}
		i += from
		if i == 0 || s[i-1] == ' ' || s[i-1] == '(' {
			v := s[i+len(key):]
			if j := strings.IndexAny(v, " );"); j >= 0 {
				v = v[:j]
			}
			return v
		}
		from = i + len(key)
	}
}

// splitOutsideComments splits s at sep characters that are not inside a
// parenthesised comment or a quoted string: comments often hold ';'.
func splitOutsideComments(s string, sep byte) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
		case quoted:
			quoted = c != '"'
		case c == '"':
			quoted = true
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case c == sep && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// stripComments returns s without its (possibly nested) comments, and the
// comments' text.
func stripComments(s string) (text, comments string) {
	var t, c strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '(':
			if depth > 0 {
				c.WriteByte(ch)
			} else if c.Len() > 0 {
				c.WriteByte(' ')
			}
			depth++
		case ch == ')' && depth > 0:
			depth--
			if depth > 0 {
				c.WriteByte(ch)
			}
		case depth > 0:
			c.WriteByte(ch)
		default:
			t.WriteByte(ch)
		}
	}
	return t.String(), c.String()
}
