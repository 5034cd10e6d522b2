package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// hookTextProblem finds the first string of a webhook body that decoding
// would not keep as sent, and says which field holds it: invalid UTF-8,
// or a \uXXXX escape of a UTF-16 surrogate that is not half of a pair.
// encoding/json turns both into U+FFFD without a word, so the device
// would get different text than was posted. "" when there is none; a body
// that is not JSON is left to the decoder to describe.
func hookTextProblem(body []byte) string {
	// Almost every body: valid UTF-8 and no escape that could be a
	// surrogate. Only the others pay for the walk through the tokens.
	if utf8.Valid(body) && !maybeSurrogateEscape(body) {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	// Open containers; for an object, whether its next string is a key.
	type open struct{ object, wantKey bool }
	var stack []open
	field := "" // the top-level field being read
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				stack = append(stack, open{object: t == '{', wantKey: t == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			raw := rawString(body, before, dec.InputOffset())
			isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey
			if msg := badText(raw); msg != "" {
				switch {
				case isKey && len(stack) == 1:
					return "a field name holds " + msg
				case field != "":
					return field + " holds " + msg
				default:
					return "the body holds " + msg
				}
			}
			if isKey {
				if len(stack) == 1 {
					field = t
				}
				stack[len(stack)-1].wantKey = false
				continue
			}
		}
		// A value is complete: in an object, a key comes next.
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
	if !utf8.Valid(body) {
		return "the body is not valid UTF-8"
	}
	return ""
}

// maybeSurrogateEscape reports whether body holds \uD800-\uDFFF (in any
// case), the only escapes that can encode a lone surrogate. An escaped
// backslash followed by such letters also counts: the slow path sorts it out.
func maybeSurrogateEscape(body []byte) bool {
	for {
		i := bytes.Index(body, []byte(`\u`))
		if i < 0 || i+4 > len(body) {
			return false
		}
		if d, h := body[i+2], body[i+3]; (d == 'd' || d == 'D') && (h >= '8' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
			return true
		}
		body = body[i+2:]
	}
}

// rawString is the string token that ended at end as written in body:
// between the previous token and it only blanks, ':' and ',' can stand.
func rawString(body []byte, from, end int64) []byte {
	for from < end && body[from] != '"' {
		from++
	}
	return body[from:end]
}

// badText describes the first text in a raw JSON string (quotes
// included) that is not a character: an invalid UTF-8 byte or a lone
// surrogate escape. "" when every character is one.
func badText(raw []byte) string {
	for i := 1; i < len(raw)-1; {
		c := raw[i]
		switch {
		case c == '\\' && raw[i+1] == 'u':
			r := hex4(raw[i+2 : i+6])
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if i+12 <= len(raw)-1 && raw[i+6] == '\\' && raw[i+7] == 'u' {
					if lo := hex4(raw[i+8 : i+12]); lo >= 0xDC00 && lo < 0xE000 {
						i += 12
						continue
					}
				}
				return fmt.Sprintf(`a lone UTF-16 surrogate \u%04x, which is not a character (send text as UTF-8, or a character beyond U+FFFF as a pair of escapes)`, r)
			case r >= 0xDC00 && r < 0xE000:
				return fmt.Sprintf(`a lone UTF-16 surrogate \u%04x, which is not a character (send text as UTF-8, or a character beyond U+FFFF as a pair of escapes)`, r)
			}
			i += 6
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Sprintf("invalid UTF-8 (byte 0x%02x): send text as UTF-8", c)
			}
			i += n
		}
	}
	return ""
}

// hex4 reads four hex digits, which the tokenizer has already checked.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
