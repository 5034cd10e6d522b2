package mailtext

import (
	"html"
	"strings"
)

// HTMLToText renders HTML as plain text for reading, not for display:
// tags are dropped, the content of script, style, title and similar
// elements is dropped, character references are decoded, block elements
// start new lines and white space is collapsed. It never fails: broken
// markup (an unclosed comment, a stray '<') degrades to plain text.
func HTMLToText(s string) string {
	var w textBuilder
	for i := 0; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			w.text(s[i:])
			break
		}
		w.text(s[i : i+lt])
		i += lt
		switch {
		case strings.HasPrefix(s[i:], "<!--"):
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				return w.String() // the rest is one unclosed comment
			}
			i += 4 + end + 3
			continue
		case strings.HasPrefix(s[i:], "<!") || strings.HasPrefix(s[i:], "<?"):
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return w.String()
			}
			i += end + 1
			continue
		}
		name, closing, ok := tagName(s[i+1:])
		if !ok {
			w.text("<") // "a < b", "<3": text, not a tag
			i++
			continue
		}
		end := tagEnd(s, i+1)
		if end < 0 {
			break // an unterminated tag: nothing readable follows
		}
		i = end + 1
		if !closing && isRawTextElement(name) {
			// Skip the element's content up to its end tag. Without one, only
			// the tag itself is dropped, so a missing </title> cannot hide a
			// whole message.
			if j := indexFold(s[i:], "</"+name); j >= 0 {
				if k := strings.IndexByte(s[i+j:], '>'); k >= 0 {
					i += j + k + 1
				} else {
					i = len(s)
				}
			}
			continue
		}
		switch {
		case name == "br":
			w.newline()
		case isBlockElement(name):
			w.lineBreak()
		case name == "td" || name == "th":
			w.space()
		case name == "img" && !closing:
			// Nothing: image-only spam yields no text, which is itself telling.
		}
	}
	return w.String()
}

// tagName reads the element name after '<' (and an optional '/'), lower
// case. ok is false when what follows cannot start a tag.
func tagName(s string) (name string, closing bool, ok bool) {
	if strings.HasPrefix(s, "/") {
		closing = true
		s = s[1:]
	}
	n := 0
	for n < len(s) && n < 32 {
		c := s[n]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || n > 0 && (c >= '0' && c <= '9' || c == '-' || c == ':') {
			n++
			continue
		}
		break
	}
	if n == 0 {
		return "", false, false
	}
	return strings.ToLower(s[:n]), closing, true
}

// tagEnd finds the '>' that ends the tag whose name starts at from,
// skipping quoted attribute values; -1 when there is none.
func tagEnd(s string, from int) int {
	var quote byte
	for i := from; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			// Only a quote right after '=' opens a value; elsewhere it is
			// junk that must not swallow the rest of the document.
			if i > from && s[i-1] == '=' {
				quote = c
			}
		case c == '>':
			return i
		}
	}
	return -1
}

func isRawTextElement(name string) bool {
	switch name {
	case "script", "style", "title", "template", "xml", "head":
		return true
	}
	return false
}

func isBlockElement(name string) bool {
	switch name {
	case "p", "div", "tr", "li", "ul", "ol", "dl", "dt", "dd", "table", "tbody", "thead", "tfoot",
		"h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr", "center", "section",
		"article", "header", "footer", "nav", "aside", "address", "form", "fieldset", "body", "html":
		return true
	}
	return false
}

// indexFold is strings.Index ignoring ASCII case of the needle (which is
// lower case ASCII).
func indexFold(s, lowerNeedle string) int {
	n := len(lowerNeedle)
	for i := 0; i+n <= len(s); i++ {
		if s[i] == '<' && strings.EqualFold(s[i:i+n], lowerNeedle) {
			return i
		}
	}
	return -1
}

// textBuilder collects readable text: runs of white space become one
// space, lines are trimmed, and at most one empty line separates blocks.
type textBuilder struct {
	b        strings.Builder
	pendingS bool // a space is due before the next word
	newlines int  // line breaks due before the next word (at most 2)
}

// text adds HTML character data: references are decoded, white space
// collapsed.
func (w *textBuilder) text(s string) {
	if s == "" {
		return
	}
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	w.plain(s, false)
}

// plain adds text; with keepLines, its line breaks are kept.
func (w *textBuilder) plain(s string, keepLines bool) {
	for _, r := range s {
		switch {
		case r == '\n' && keepLines:
			w.newline()
		case r <= ' ' || r == 0xa0 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x200b || r == 0xfeff:
			if r <= ' ' || r == 0xa0 {
				w.space()
			}
		default:
			if w.b.Len() > 0 {
				switch {
				case w.newlines > 0:
					w.b.WriteString("\n\n"[:w.newlines])
				case w.pendingS:
					w.b.WriteByte(' ')
				}
			}
			w.newlines, w.pendingS = 0, false
			w.b.WriteRune(r)
		}
	}
}

func (w *textBuilder) space() { w.pendingS = true }

func (w *textBuilder) newline() {
	if w.newlines < 2 {
		w.newlines++
	}
}

// lineBreak asks for the next word to start a line; several in a row (the
// end of one block, the start of the next) still make one.
func (w *textBuilder) lineBreak() { w.newlines = max(w.newlines, 1) }

func (w *textBuilder) String() string { return w.b.String() }
