package directory_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

// FuzzRef: a file's ref is valid UTF-8 and gives back the exact path bytes
// and hash it was made from, whatever the path holds; any string parsed as
// a ref never panics, and what parses formats back to itself.
func FuzzRef(f *testing.F) {
	for _, rel := range []string{
		"a.md", "dir/sub/b.txt", "me@example.com.eml", "a@b@c", "bad\xffname", "\xc3", "back\\slash",
		`literal\x41`, "日本語/ノート.md", "trailing@", "sp ace/x", "../up", "/abs", "nul\x00byte",
	} {
		f.Add(rel, []byte("content"))
		f.Add(rel, []byte(nil))
	}
	f.Fuzz(func(t *testing.T, rel string, content []byte) {
		hash := ""
		if len(content) > 0 {
			sum := sha256.Sum256(content)
			hash = hex.EncodeToString(sum[:])
		}
		if rel != "" {
			ref := directory.FormatRef(rel, hash)
			if !utf8.ValidString(ref) {
				t.Fatalf("FormatRef(%q) = %q is not valid UTF-8", rel, ref)
			}
			gotRel, gotHash, err := directory.ParseRef(ref)
			if err != nil || gotRel != rel || gotHash != hash[:min(len(hash), 16)] {
				t.Fatalf("ParseRef(FormatRef(%q, %q)) = %q, %q, %v", rel, hash, gotRel, gotHash, err)
			}
		}
		// rel read as a ref, as the database or a peer could hand one in.
		r, h, err := directory.ParseRef(rel)
		if err != nil {
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("ParseRef(%q) error is not valid UTF-8: %q", rel, err)
			}
			return
		}
		r2, h2, err := directory.ParseRef(directory.FormatRef(r, h))
		if err != nil || r2 != r || h2 != h {
			t.Fatalf("ParseRef(%q) = %q, %q; formatted and parsed again: %q, %q, %v", rel, r, h, r2, h2, err)
		}
	})
}

// secret is what lies next to the watched folder: no ref may reach it.
const secret = "SECRET-OUTSIDE-THE-WATCHED-FOLDER"

// FuzzFetchRef resolves refs against a real folder with a secret beside
// it and links inside it that point out. Whatever the ref, the content
// read is the file's inside the root or nothing: a ref naming a path
// outside the root (absolute, "..", escaped "..") is refused as invalid,
// and every error says something.
func FuzzFetchRef(f *testing.F) {
	e := newEnv(f)
	base := filepath.Dir(e.root)
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte(secret), 0o600); err != nil {
		f.Fatal(err)
	}
	e.write("a.md", "# A\nalpha\n")
	e.write("dir/b.txt", "beta\n")
	e.write("sp ace/é@x.md", "gamma\n")
	for link, target := range map[string]string{"leak.txt": "../secret.txt", "dir/up": "../..", "abs.txt": filepath.Join(base, "secret.txt")} {
		if err := os.Symlink(target, filepath.Join(e.root, filepath.FromSlash(link))); err != nil {
			f.Fatal(err)
		}
	}
	c := e.open(e.cfg())
	for _, it := range list(f, c) {
		f.Add(it.Ref)
	}
	for _, ref := range []string{
		"../secret.txt@", `\x2e\x2e/secret.txt@`, "dir/../../secret.txt@", "leak.txt@", "abs.txt@", "dir/up/secret.txt@",
		"dir/up/Inbox/a.md@", "/etc/passwd@", filepath.Join(base, "secret.txt") + "@", "./a.md@", "a.md/@", "dir//b.txt@",
		"a.md\x00@", `a.md\x00@`, ".@", "..@", "@", "a.md@0123456789abcdef", "a.md@zz",
	} {
		f.Add(ref)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, ref string) {
		rel, _, perr := directory.ParseRef(ref)
		outside := perr == nil && (!filepath.IsLocal(filepath.FromSlash(rel)) || strings.ContainsRune(rel, 0))

		got, err := c.FetchContent(ctx, ref)
		if err == nil {
			if perr != nil || outside {
				t.Fatalf("FetchContent(%q) read a ref that does not name a path inside the root", ref)
			}
			if strings.Contains(got.Text, secret) {
				t.Fatalf("FetchContent(%q) read the secret outside the root", ref)
			}
			want, rerr := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
			if rerr != nil || (got.Text != "" && got.Text != string(want)) {
				t.Fatalf("FetchContent(%q) = %q; the file inside the root holds %q (%v)", ref, got.Text, want, rerr)
			}
		} else {
			checkRefError(t, "FetchContent", ref, err, perr != nil || outside)
		}

		meta, err := c.FetchMetadata(ctx, ref)
		switch {
		case err == nil && (perr != nil || outside):
			t.Fatalf("FetchMetadata(%q) read a ref that does not name a path inside the root", ref)
		case err == nil && (strings.Contains(meta.Title, secret) || strings.Contains(meta.Excerpt, secret)):
			t.Fatalf("FetchMetadata(%q) read the secret outside the root: %+v", ref, meta)
		case err != nil:
			checkRefError(t, "FetchMetadata", ref, err, perr != nil || outside)
		}
	})
}

// checkRefError checks that err says what went wrong, and that a ref
// that must be refused is refused as invalid input.
func checkRefError(t *testing.T, op, ref string, err error, mustRefuse bool) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s(%q) succeeded; want it refused", op, ref)
	}
	if strings.TrimSpace(err.Error()) == "" || !utf8.ValidString(err.Error()) {
		t.Fatalf("%s(%q): error %q says nothing readable", op, ref, err)
	}
	if mustRefuse && scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("%s(%q) = %v; want it refused as invalid", op, ref, err)
	}
	var skip *scouts.SkipError
	if !mustRefuse && scouts.ErrorCode(err) == "" && !errors.As(err, &skip) {
		t.Fatalf("%s(%q) = %v; want an invalid ref or a skipped item", op, ref, err)
	}
}

// FuzzParseConfig: a folder scout's settings never panic the parser; bad
// ones are an EInvalid error that says something; good ones come back
// normalised (absolute clean path), and that normalised form — what is
// stored — parses again to itself. "@ROOT@" in an input stands for an
// existing folder (with a file f.txt and a folder sub inside).
func FuzzParseConfig(f *testing.F) {
	root := f.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.txt"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"path":"@ROOT@/","include":["*.md","notes/**/*.txt"],"exclude":["drafts/"],"include_existing":true,"note_extensions":["MD","org"],"rescan_interval":"10m","settle":"1s"}`,
		`{"path":"@ROOT@"}`, `{"path":"@ROOT@/sub/../sub"}`, `{"path":"@ROOT@/f.txt"}`, `{"path":"@ROOT@/missing"}`,
		`{}`, ``, `null`, `[]`, `{"path":"relative/dir"}`, `{"path":"@ROOT@","paht":"x"}`,
		`{"path":"@ROOT@","include":["[a"]}`, `{"path":"@ROOT@","exclude":["a//b"]}`, `{"path":"@ROOT@","exclude":[""]}`,
		`{"path":"@ROOT@","rescan_interval":"soon"}`, `{"path":"@ROOT@","rescan_interval":300}`,
		`{"path":"@ROOT@","rescan_interval":"10ms"}`, `{"path":"@ROOT@","settle":"-1s"}`, `{"path":"@ROOT@","settle":"0s"}`,
		`{"path":"@ROOT@","note_extensions":["a/b"]}`, `{"path":"@ROOT@","note_extensions":[" .TXT "]}`,
		`{"path":"@ROOT@","note_extensions":[]}`, `{"path":"@ROOT@"} {}`, `{"path":"@ROOT@\u0000"}`,
		`{"path":"@ROOT@","rescan_interval":"9223372036854775807ns"}`, `{"PATH":"@ROOT@","Include":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.ReplaceAll(raw, []byte("@ROOT@"), []byte(filepath.ToSlash(root)))
		c, err := directory.ParseConfig(raw)
		if err != nil {
			if scouts.ErrorCode(err) != scouts.EInvalid || strings.TrimSpace(scouts.ErrorMessage(err)) == "" || !utf8.ValidString(err.Error()) {
				t.Fatalf("ParseConfig(%q) = %v; want EInvalid with a readable message", raw, err)
			}
			return
		}
		if !filepath.IsAbs(c.Path) || filepath.Clean(c.Path) != c.Path {
			t.Fatalf("ParseConfig(%q): path %q is not absolute and clean", raw, c.Path)
		}
		for _, e := range c.NoteExtensions {
			if !strings.HasPrefix(e, ".") || e != strings.ToLower(e) || path.Base(e) != e {
				t.Fatalf("ParseConfig(%q): note extension %q is not normalised", raw, e)
			}
		}
		stored, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("ParseConfig(%q) = %+v, which does not encode: %v", raw, c, err)
		}
		c2, err := directory.ParseConfig(stored)
		if err != nil {
			t.Fatalf("the stored form %s of %q does not parse: %v", stored, raw, err)
		}
		if again, _ := json.Marshal(c2); !bytes.Equal(again, stored) {
			t.Fatalf("the stored form drifts: %s then %s", stored, again)
		}
	})
}
