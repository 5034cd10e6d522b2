package directory

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		glob, rel string
		dir, want bool
	}{
		{"*.md", "a.md", false, true},
		{"*.md", "x/y/a.md", false, true},
		{"*.md", "a.txt", false, false},
		{"notes/*.md", "notes/a.md", false, true},
		{"notes/*.md", "x/notes/a.md", false, false},
		{"/notes/*.md", "notes/a.md", false, true},
		{"**/tmp/*.md", "tmp/a.md", false, true},
		{"**/tmp/*.md", "a/b/tmp/a.md", false, true},
		{"**/tmp/*.md", "a/b/tmp/c/a.md", false, false},
		{"notes/**", "notes", true, true},
		{"notes/**", "notes/a/b/c.md", false, true},
		{"notes/**/x.md", "notes/x.md", false, true},
		{"notes/**/x.md", "notes/a/b/x.md", false, true},
		{"a/**/b/**/c", "a/1/b/2/3/c", false, true},
		{"build/", "build", true, true},
		{"build/", "build", false, false},
		{"build/", "src/build", true, true},
		{".*", "x/.git", true, true},
		{"*~", "a.md~", false, true},
		{"#*#", "#a#", false, true},
		{"*", "bad\xffname", false, true},
		{"#*#", "#", false, false},
		{"README", "x/README", false, true},
		{"README", "x/README.md", false, false},
		{"a?c.md", "abc.md", false, true},
		{"[ab].md", "b.md", false, true},
		{"[ab].md", "c.md", false, false},
		{"notes/*/x.md", "notes/a/x.md", false, true},
	} {
		g, err := compileGlob(tc.glob)
		if err != nil {
			t.Fatalf("compile %q: %v", tc.glob, err)
		}
		if got := g.match(tc.rel, tc.dir); got != tc.want {
			t.Errorf("%q matches %q (dir %v) = %v; want %v", tc.glob, tc.rel, tc.dir, got, tc.want)
		}
	}
}

func TestExtractTitles(t *testing.T) {
	for _, tc := range []struct{ name, text, title, excerpt string }{
		{"a.md", "# Hello #\nworld", "Hello", "world"},
		{"a.md", "---\ntitle: From front matter\ntags: [x]\n---\nJust text\nmore", "From front matter", "Just text more"},
		{"a.md", "---\ntitle: From front matter\n---\n\n", "From front matter", ""},
		{"a.md", "```\n# not a heading\n```\nSetext\n---\nbody", "Setext", "body"},
		{"a.md", "#hashtag line\n## Real\n### Sub\ntext", "Real", "Sub text"},
		{"a.md", "\uFEFFplain first line\r\nsecond\r\n", "plain first line", "second"},
		{"a.txt", "# not markdown\nnext", "# not markdown", "next"},
		{"a.txt", "  \n\t\n", "a.txt", ""},
	} {
		x := extract(tc.name, int64(len(tc.text)), []byte(tc.text))
		if x.title != tc.title || x.excerpt != tc.excerpt {
			t.Errorf("extract(%q, %q) = %q / %q; want %q / %q", tc.name, tc.text, x.title, x.excerpt, tc.title, tc.excerpt)
		}
	}
	// A head cut inside a multi-byte character is still text.
	head := []byte(strings.Repeat("é", 10))[:19]
	if !isText(head, true) || isText(head, false) {
		t.Error("a head cut inside a rune: want text when cut, not text when whole")
	}
	if isText([]byte("abc\x00def"), false) {
		t.Error("NUL byte: want binary")
	}
	if got := humanSize(12611); got != "12.3 KiB" {
		t.Errorf("humanSize = %q", got)
	}
	if got := clipRunes(strings.Repeat("ab ", 100), 20); len([]rune(got)) > 20 || !strings.HasSuffix(got, "…") {
		t.Errorf("clipRunes = %q", got)
	}
}
