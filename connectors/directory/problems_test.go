//go:build unix

package directory_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

func TestSymlinksInsideAndOutside(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(filepath.Dir(e.root), "secret.md")
	os.WriteFile(outside, []byte("# Secret\n"), 0o644)
	e.write("real/note.md", "# Real\n")
	mustSymlink(t, "real/note.md", filepath.Join(e.root, "link-inside.md"))
	mustSymlink(t, "real", filepath.Join(e.root, "dirlink"))                        // a folder inside: not followed
	mustSymlink(t, filepath.Join(e.root, "real"), filepath.Join(e.root, "abslink")) // absolute, inside
	mustSymlink(t, outside, filepath.Join(e.root, "leak.md"))
	mustSymlink(t, "../../secret.md", filepath.Join(e.root, "real", "leak2.md"))
	mustSymlink(t, "../note.md", filepath.Join(e.root, "real", "up-inside.md")) // "..", but still inside
	mustSymlink(t, "nowhere.md", filepath.Join(e.root, "dangling.md"))          // dangling, inside

	c := e.open(e.cfg())
	items := byPath(t, list(t, c))
	if got := paths(t, list(t, e.open(e.cfg()))); len(got) != 0 {
		t.Errorf("a rescan repeated %v", got)
	}
	var files, problems []string
	for rel, it := range items {
		if it.Problem != "" {
			problems = append(problems, rel)
		} else {
			files = append(files, rel)
		}
	}
	slices.Sort(files)
	slices.Sort(problems)
	if !slices.Equal(files, []string{"real/note.md"}) {
		t.Errorf("items %v; want only the real file", files)
	}
	if !slices.Equal(problems, []string{"leak.md", "real/leak2.md"}) {
		t.Fatalf("problems %v; want the two links that leave the root", problems)
	}
	p := items["leak.md"]
	want := filepath.Join(e.root, "leak.md") + " is a symbolic link to a place outside the watched folder; not followed"
	if p.Problem != want || p.Ref != "leak.md@" {
		t.Errorf("problem item %+v; want %q with ref leak.md@", p, want)
	}
	root, _ := e.index().LoadDir(context.Background(), "")
	if root["link-inside.md"].Type != directory.TypeSymlink || root["leak.md"].Type != directory.TypeProblem {
		t.Errorf("index entries %+v", root)
	}
	// Re-pointing the link inside makes it an ordinary recorded link.
	os.Remove(filepath.Join(e.root, "leak.md"))
	mustSymlink(t, "real/note.md", filepath.Join(e.root, "leak.md"))
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("re-pointed link produced %v", paths(t, got))
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidUTF8FileName(t *testing.T) {
	e := newEnv(t)
	name := "bad\xff name@x.txt"
	if err := os.WriteFile(filepath.Join(e.root, name), []byte("Hello\nworld\n"), 0o644); err != nil {
		t.Skipf("this file system refuses names that are not UTF-8: %v", err)
	}
	c := e.open(e.cfg())
	items := list(t, c)
	if len(items) != 1 {
		t.Fatalf("%d items; want 1", len(items))
	}
	it := items[0]
	if it.Ref != `bad\xff name@x.txt@`+sum16("Hello\nworld\n") {
		t.Errorf("ref %q", it.Ref)
	}
	if !slices.Equal(it.Notes, []string{"file name is not valid UTF-8; shown with replacement characters"}) {
		t.Errorf("notes %q", it.Notes)
	}
	if want := filepath.Join(e.root, "bad\uFFFD name@x.txt"); it.Meta.Path != want {
		t.Errorf("path %q; want %q", it.Meta.Path, want)
	}
	if it.Meta.Title != "Hello" || it.Meta.ProposedKind != scouts.EntityNote {
		t.Errorf("meta %+v", it.Meta)
	}
	got, err := c.FetchContent(context.Background(), it.Ref)
	if err != nil || got.Text != "Hello\nworld\n" {
		t.Errorf("FetchContent = %+v, %v", got, err)
	}
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("rescan repeated %v", got)
	}
}

func TestUnreadableFile(t *testing.T) {
	e := newEnv(t)
	e.write("locked.md", "# Locked\n")
	e.write("open.md", "# Open\n")
	c := e.open(e.cfg())
	directory.SetOpenFile(c, func(dir *os.Root, name string) (*os.File, error) {
		if name == "locked.md" {
			return nil, &fs.PathError{Op: "openat", Path: name, Err: syscall.EACCES}
		}
		return dir.OpenFile(name, os.O_RDONLY, 0)
	})
	items := byPath(t, list(t, c))
	want := "File " + filepath.Join(e.root, "locked.md") + " cannot be read: permission denied"
	if p := items["locked.md"]; p.Problem != want || p.Ref != "locked.md@" {
		t.Errorf("problem item %+v; want %q", p, want)
	}
	if items["open.md"].Problem != "" {
		t.Errorf("readable file got a problem")
	}
	// Reported once…
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("rescan repeated %v", paths(t, got))
	}
	// …and retried once the file changes.
	e.write("locked.md", "# Locked, now readable\n")
	if got := paths(t, list(t, e.open(e.cfg()))); !slices.Equal(got, []string{"locked.md"}) {
		t.Errorf("after a change: %v; want locked.md read again", got)
	}
}

func TestUnreadableFileRealPermissions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: chmod 000 does not stop root from reading; TestUnreadableFile covers this with an injected open")
	}
	e := newEnv(t)
	p := e.write("locked.md", "# Locked\n")
	e.write("closed/inside.md", "# Inside\n")
	d := filepath.Join(e.root, "closed")
	os.Chmod(p, 0)
	os.Chmod(d, 0)
	t.Cleanup(func() { os.Chmod(p, 0o644); os.Chmod(d, 0o755) })
	items := byPath(t, list(t, e.open(e.cfg())))
	if len(items) != 2 || !strings.HasSuffix(items["locked.md"].Problem, "cannot be read: permission denied") ||
		!strings.HasSuffix(items["closed"].Problem, "cannot be read: permission denied; its files are not watched") {
		t.Fatalf("items %+v; want two permission problems", items)
	}
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("rescan repeated %+v", got)
	}
	// A chmod alone (no new mtime) retries them.
	os.Chmod(p, 0o644)
	os.Chmod(d, 0o755)
	if got := paths(t, list(t, e.open(e.cfg()))); !slices.Equal(got, []string{"closed/inside.md", "locked.md"}) {
		t.Errorf("after chmod: %v; want both files as items", got)
	}
}

func TestVanishedFile(t *testing.T) {
	e := newEnv(t)
	e.write("gone.md", "# Gone\n")
	c := e.open(e.cfg())
	directory.SetBeforeOpen(c, func(rel string) {
		if rel == "gone.md" {
			os.Remove(filepath.Join(e.root, "gone.md"))
		}
	})
	items := list(t, c)
	want := "File " + filepath.Join(e.root, "gone.md") + " vanished before it could be read"
	if len(items) != 1 || items[0].Problem != want {
		t.Fatalf("items %+v; want one problem %q", items, want)
	}
	if m, _ := e.index().LoadDir(context.Background(), ""); len(m) != 0 {
		t.Errorf("vanished file recorded: %v", m)
	}
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("rescan: %v", got)
	}
}

func TestFileSwappedForLinkIsNotFollowed(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(filepath.Dir(e.root), "secret.md")
	os.WriteFile(outside, []byte("# Secret\n"), 0o644)
	e.write("swap.md", "# Innocent\n")
	c := e.open(e.cfg())
	swapped := false
	directory.SetBeforeOpen(c, func(rel string) {
		if rel == "swap.md" && !swapped {
			swapped = true
			p := filepath.Join(e.root, "swap.md")
			os.Remove(p)
			mustSymlink(t, outside, p)
		}
	})
	// The scan notices the swap and leaves the entry for the next scan.
	if items := list(t, c); len(items) != 0 {
		t.Fatalf("a file swapped for a link after listing gave %+v; want nothing yet", items)
	}
	// The next scan sees the link for what it is.
	items := list(t, c)
	if len(items) != 1 || !strings.Contains(items[0].Problem, "outside the watched folder") {
		t.Errorf("next scan: %+v; want the link reported as leaving the root", items)
	}
}

func TestHugeSparseFileHashesFirst64MiB(t *testing.T) {
	e := newEnv(t)
	p := e.write("huge.bin", "HEADER")
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		f.Close()
		t.Skipf("cannot make a sparse file here: %v", err)
	}
	f.Close()
	h := sha256.New()
	h.Write([]byte("HEADER"))
	h.Write(make([]byte, directory.MaxHashBytes-len("HEADER")))
	want := hex.EncodeToString(h.Sum(nil))

	items := list(t, e.open(e.cfg()))
	if len(items) != 1 {
		t.Fatalf("%d items", len(items))
	}
	it := items[0]
	if it.Ref != "huge.bin@"+want[:16] {
		t.Errorf("ref %q; want the hash of the first 64 MiB %s", it.Ref, want[:16])
	}
	if !slices.Equal(it.Notes, []string{"file is 3 GiB; only its first 64 MiB were read"}) {
		t.Errorf("notes %q", it.Notes)
	}
	if it.Meta.Excerpt != "binary file, 3 GiB" {
		t.Errorf("excerpt %q", it.Meta.Excerpt)
	}
	m, _ := e.index().LoadDir(context.Background(), "")
	if m["huge.bin"].Hash != want || m["huge.bin"].Size != 3<<30 {
		t.Errorf("index entry %+v", m["huge.bin"])
	}
}

func TestSpecialFilesAreIgnored(t *testing.T) {
	e := newEnv(t)
	if err := syscall.Mkfifo(filepath.Join(e.root, "pipe.md"), 0o644); err != nil {
		t.Skipf("no fifos here: %v", err)
	}
	e.write("a.md", "# A\n")
	// Opening the fifo would block forever; the scan must not.
	if got := paths(t, list(t, e.open(e.cfg()))); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("found %v; want a.md only", got)
	}
}
