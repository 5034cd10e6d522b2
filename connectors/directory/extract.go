package directory

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/scouts"
)

// Limits of what is read from a file.
const (
	// MaxHashBytes bounds the bytes hashed: a huge file is identified by
	// its size, its modification time and its first MaxHashBytes.
	MaxHashBytes = 64 << 20
	// headBytes is how much of a file the title and excerpt come from.
	headBytes = 64 << 10
	// sniffBytes is where a NUL byte marks a file as binary (as git does).
	sniffBytes = 8 << 10
	// maxContentBytes bounds FetchContent.
	maxContentBytes = 1 << 20

	maxTitleRunes   = 120
	maxExcerptRunes = 280
)

// extracted is what a card shows, taken from a file's first bytes.
type extracted struct {
	title    string
	excerpt  string
	text     bool
	markdown bool
	// body is the text of the file's first bytes, for rules' text field;
	// empty for a binary file. Transient, like the rest.
	body string
}

// isText reports whether b looks like text: no NUL in its first sniffBytes
// and valid UTF-8, where cut says b stops before the file does and may end
// inside a multi-byte character.
func isText(b []byte, cut bool) bool {
	if bytes.IndexByte(b[:min(len(b), sniffBytes)], 0) >= 0 {
		return false
	}
	if cut {
		b = trimPartialRune(b)
	}
	return utf8.Valid(b)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

func isMarkdownName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown":
		return true
	}
	return false
}

// extract takes the title and excerpt of a file called name (the display
// form of its base name) of the given size whose first bytes are head.
func extract(name string, size int64, head []byte) extracted {
	cut := int64(len(head)) < size
	if !isText(head, cut) {
		return extracted{title: name, excerpt: "binary file, " + humanSize(size)}
	}
	if cut {
		head = trimPartialRune(head)
	}
	s := strings.TrimPrefix(string(head), "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	x := extracted{text: true, markdown: isMarkdownName(name), body: s}
	lines := strings.Split(s, "\n")
	var rest []string
	if x.markdown {
		var fmTitle string
		lines, fmTitle = skipFrontMatter(lines)
		x.title, rest = markdownTitle(lines)
		if x.title == "" && fmTitle != "" {
			x.title, rest = fmTitle, lines
		}
	}
	if x.title == "" {
		x.title, rest = firstLine(lines)
	}
	if x.title == "" {
		x.title = name
	}
	x.title = clipRunes(collapseSpace(x.title), maxTitleRunes)
	x.excerpt = excerpt(rest, x.markdown)
	return x
}

// skipFrontMatter drops a YAML front matter block ("---" … "---") and
// returns its title: value if it has one.
func skipFrontMatter(lines []string) ([]string, string) {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return lines, ""
	}
	title := ""
	for i := 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "---" || l == "..." {
			return lines[i+1:], title
		}
		if v, ok := strings.CutPrefix(l, "title:"); ok && title == "" {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return lines, "" // no closing marker: not front matter after all
}

// markdownTitle finds the first ATX ("# x") or setext ("x" over "===" or
// "---") heading outside fenced code, and returns it with the lines after
// it.
func markdownTitle(lines []string) (string, []string) {
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if h, ok := atxHeading(t); ok {
			if h != "" {
				return h, lines[i+1:]
			}
			continue
		}
		if t != "" && i+1 < len(lines) && isSetextUnderline(lines[i+1]) && !strings.HasPrefix(l, "    ") {
			return t, lines[i+2:]
		}
	}
	return "", nil
}

// atxHeading returns the text of an ATX heading line ("## Plans ##").
func atxHeading(t string) (string, bool) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return "", false
	}
	h := strings.TrimSpace(t[n:])
	if trimmed := strings.TrimRight(h, "#"); trimmed == "" || strings.HasSuffix(trimmed, " ") {
		h = strings.TrimSpace(trimmed)
	}
	return h, true
}

func isSetextUnderline(l string) bool {
	t := strings.TrimSpace(l)
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

func firstLine(lines []string) (string, []string) {
	for i, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			return t, lines[i+1:]
		}
	}
	return "", nil
}

// excerpt joins the lines after the title into one line of at most
// maxExcerptRunes, dropping Markdown heading markers and setext underlines.
func excerpt(lines []string, markdown bool) string {
	var b strings.Builder
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if markdown {
			if h, ok := atxHeading(t); ok {
				t = h
			} else if isSetextUnderline(t) {
				continue
			}
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		if b.Len() > 4*maxExcerptRunes {
			break // enough to fill the excerpt whatever the runes' widths
		}
	}
	return clipRunes(collapseSpace(b.String()), maxExcerptRunes)
}

// collapseSpace turns every run of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// clipRunes shortens s to at most n runes, ending with "…" when it cut,
// preferably at a word boundary.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut*2/3 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}

// proposedKind is what a file is suggested as: a note for text whose
// extension is a note extension (or that has none), else a task.
func proposedKind(name string, text bool, noteExts []string) scouts.EntityKind {
	if !text {
		return scouts.EntityTask
	}
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return scouts.EntityNote
	}
	for _, e := range noteExts {
		if e == ext {
			return scouts.EntityNote
		}
	}
	return scouts.EntityTask
}

// describe names what a file looks like, for the card's reason.
func (x extracted) describe() string {
	switch {
	case x.markdown:
		return "Markdown text"
	case x.text:
		return "plain text"
	}
	return "binary file"
}

// contentType is FetchContent's content type for a file.
func (x extracted) contentType() string {
	switch {
	case x.markdown:
		return "text/markdown"
	case x.text:
		return "text/plain"
	}
	return "application/octet-stream"
}

// humanSize writes n bytes the way a file manager would ("12.3 KiB").
func humanSize(n int64) string {
	const unit = 1024
	if n == 1 {
		return "1 byte"
	}
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/float64(div)), ".0")
	return fmt.Sprintf("%s %ciB", v, "KMGTPE"[exp])
}
