package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// textError is a string of a rule document that is not text, at its JSON
// pointer; rule is the document's id when it was read before.
type textError struct {
	rule, path, msg string
}

func (e *textError) Error() string { return e.path + ": " + e.msg }

// frame is one open object or array of a document being walked.
type frame struct {
	object  bool
	key     string // the member being read, in an object
	wantKey bool   // an object's next string is a key
	index   int    // the element being read, in an array
}

// checkJSON checks that doc is one JSON value nesting at most
// maxJSONDepth deep, reading tokens: nothing is built before the depth is
// known to be sane. It checks every string too, keys included — an id, a
// name, an operand, a template, an action's parameter: each must be valid
// UTF-8 without NUL, and its escapes must not leave half a UTF-16
// surrogate pair. The JSON decoder would take such text silently (invalid
// bytes and lone surrogates become U+FFFD in what it decodes), while the
// rule is stored as sent and served back inside JSON.
func checkJSON(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var stack []frame
	id := ""
	prev := int64(0)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not JSON: %v", err)
		}
		// The bytes read for this token: what preceded it (blanks, a colon
		// or a comma, all ASCII) and the token itself, a string as written.
		raw := doc[prev:dec.InputOffset()]
		prev = dec.InputOffset()
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) == maxJSONDepth {
					return fmt.Errorf("the document nests more than %d levels deep", maxJSONDepth)
				}
				stack = append(stack, frame{object: t == '{', wantKey: t == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if top != nil && top.object && top.wantKey {
				if msg := textProblem(raw, t); msg != "" {
					return &textError{rule: id, path: pathOf(stack[:len(stack)-1]), msg: "a key: " + msg}
				}
				top.key, top.wantKey = t, false
				continue
			}
			if msg := textProblem(raw, t); msg != "" {
				return &textError{rule: id, path: pathOf(stack), msg: msg}
			}
			if len(stack) == 1 && top.object && top.key == "id" {
				id = clipMsg(t)
			}
		}
		// A value is complete: the container moves to its next member.
		if len(stack) > 0 {
			if top := &stack[len(stack)-1]; top.object {
				top.wantKey = true
			} else {
				top.index++
			}
		}
	}
}

// pathOf is the JSON pointer of the value being read.
func pathOf(stack []frame) string {
	p := ""
	for _, f := range stack {
		if f.object {
			p = pointer(p, f.key)
		} else {
			p += "/" + strconv.Itoa(f.index)
		}
	}
	return p
}

// textProblem says what is wrong with a JSON string as text, "" when
// nothing: raw is the string as written (with what preceded it), s as
// decoded.
func textProblem(raw []byte, s string) string {
	if !utf8.Valid(raw) {
		return "not valid UTF-8"
	}
	if strings.IndexByte(s, 0) >= 0 {
		return `contains NUL (\u0000)`
	}
	if hasLoneSurrogate(raw) {
		return `half of a UTF-16 surrogate pair (an escape from \ud800 to \udfff without its other half)`
	}
	return ""
}

// hasLoneSurrogate finds an escaped UTF-16 surrogate not paired as a high
// one then a low one, in a JSON string the decoder accepted (so each
// escape is well formed).
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character: \\ and \" are skipped whole
		if raw[i] != 'u' {
			continue
		}
		r := hex4(raw[i+1 : i+5])
		i += 4
		switch {
		case 0xD800 <= r && r < 0xDC00:
			if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if low := hex4(raw[i+3 : i+7]); 0xDC00 <= low && low < 0xE000 {
					i += 6
					continue
				}
			}
			return true
		case 0xDC00 <= r && r < 0xE000:
			return true
		}
	}
	return false
}

func hex4(b []byte) rune {
	n, err := strconv.ParseUint(string(b), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}
