package rules

import (
	"errors"
	"strings"
	"testing"
)

// TestTextMustBeValid: a string anywhere in a rule — an operand, the id,
// the name, a template, an action's parameter, a key — that is not valid
// UTF-8, holds NUL or a lone UTF-16 surrogate is refused at its JSON
// pointer: such text was stored as sent and served back as invalid JSON.
func TestTextMustBeValid(t *testing.T) {
	for _, c := range []struct{ doc, path, msg string }{
		{`{"id":"r","when":{"subject":{"contains":"a` + "\xff\xfe" + `"}},"then":{"verdict":"show"}}`, "/when/subject/contains", "not valid UTF-8"},
		{`{"id":"r","when":{"$and":[{"from":{"exists":true}},{"subject":{"equals":"a\u0000b"}}]},"then":{"verdict":"show"}}`, "/when/$and/1/subject/equals", "NUL"},
		{`{"id":"r","when":{"subject":{"in":["ok","\ud800x"]}},"then":{"verdict":"show"}}`, "/when/subject/in/1", "surrogate"},
		{`{"id":"r","when":{"subject":{"regex":"\udc00"}},"then":{"verdict":"show"}}`, "/when/subject/regex", "surrogate"},
		{`{"id":"r","name":"bad ` + "\xc3" + `","when":{"subject":{"contains":"a"}},"then":{"verdict":"show"}}`, "/name", "not valid UTF-8"},
		{`{"id":"r","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","title":"{{.subject}}\u0000"}}`, "/then/title", "NUL"},
		{`{"id":"r","when":{"subject":{"contains":"a"}},"then":{"verdict":"show","actions":[{"action":"gmail.label","params":{"label":"x` + "\x80" + `"}}]}}`, "/then/actions/0/params/label", "not valid UTF-8"},
		{`{"id":"r","when":{"sub` + "\xff" + `ject":{"contains":"a"}},"then":{"verdict":"show"}}`, "/when", "a key"},
		{`{"id":"r` + "\xff" + `","when":{"subject":{"contains":"a"}},"then":{"verdict":"show"}}`, "/id", "not valid UTF-8"},
	} {
		_, err := Compile(KindGmail, []byte(c.doc), Options{})
		var e *Error
		if !errors.As(err, &e) || e.Path != c.path || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%q: %v; want an error at %s saying %q", c.doc, err, c.path, c.msg)
			continue
		}
		if !strings.HasPrefix(err.Error(), "rule") || strings.ContainsRune(err.Error(), 0) || !isValidText(err.Error()) {
			t.Errorf("%q: the error is not clean text: %q", c.doc, err.Error())
		}
	}
	// Escapes that are valid text pass: a pair of surrogates, a tab, an
	// escaped backslash before a u.
	ok := `{"id":"r","name":"\ud83d\ude00 \t \\u0000","when":{"subject":{"contains":"\u00e9\\ud800"}},"then":{"verdict":"show"}}`
	if _, err := Compile(KindGmail, []byte(ok), Options{}); err != nil {
		t.Errorf("valid escapes refused: %v", err)
	}
}

func isValidText(s string) bool { return strings.ToValidUTF8(s, "") == s }
