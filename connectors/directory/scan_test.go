package directory_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

func sum16(content string) string {
	s := sha256.Sum256([]byte(content))
	return hex.EncodeToString(s[:])[:16]
}

func TestNewFilesTitlesKindsExcerpts(t *testing.T) {
	e := newEnv(t)
	e.write("plan.md", "Intro line before the heading\n\n# Trip   to *Lisbon*\n\nBook   flights\nand the hotel.\n\n## Budget\n900 EUR\n")
	e.write("setext.markdown", "Weekly review\n=============\n\nWhat went well.\n")
	e.write("todo.txt", "\n\n  Call the plumber  \nabout the leak\n")
	e.write("README", "Just a readme\nwith two lines\n")
	e.write("script.py", "print('hello')\n")
	e.write("photo.jpg", "\xff\xd8\xff\xe0\x00\x10JFIF\x00"+strings.Repeat("x", 12600))
	e.write("empty.md", "")
	long := strings.Repeat("word ", 100)
	e.write("long.txt", long+"\n"+long)

	c := e.open(e.cfg())
	items := byPath(t, list(t, c))
	if len(items) != 8 {
		t.Fatalf("got %d items %v; want 8", len(items), paths(t, list(t, c)))
	}
	type want struct {
		title, excerpt string
		kind           scouts.EntityKind
		reason         string
	}
	cases := map[string]want{
		"plan.md":         {"Trip to *Lisbon*", "Book flights and the hotel. Budget 900 EUR", scouts.EntityNote, "Markdown text → proposed as note"},
		"setext.markdown": {"Weekly review", "What went well.", scouts.EntityNote, "Markdown text → proposed as note"},
		"todo.txt":        {"Call the plumber", "about the leak", scouts.EntityNote, "plain text → proposed as note"},
		"README":          {"Just a readme", "with two lines", scouts.EntityNote, "plain text → proposed as note"},
		"script.py":       {"print('hello')", "", scouts.EntityTask, "plain text → proposed as task"},
		"photo.jpg":       {"photo.jpg", "binary file, 12.3 KiB", scouts.EntityTask, "binary file → proposed as task"},
		"empty.md":        {"empty.md", "", scouts.EntityNote, "Markdown text → proposed as note"},
	}
	for name, w := range cases {
		it, ok := items[name]
		if !ok {
			t.Errorf("no item for %s", name)
			continue
		}
		m := it.Meta
		if m == nil {
			t.Errorf("%s: no metadata", name)
			continue
		}
		if m.Title != w.title || m.Excerpt != w.excerpt || m.ProposedKind != w.kind {
			t.Errorf("%s: title %q excerpt %q kind %s; want %q %q %s", name, m.Title, m.Excerpt, m.ProposedKind, w.title, w.excerpt, w.kind)
		}
		wantReason := "New file in " + e.root + "; " + w.reason
		if m.Reason != wantReason {
			t.Errorf("%s: reason %q; want %q", name, m.Reason, wantReason)
		}
		if m.Path != filepath.Join(e.root, name) {
			t.Errorf("%s: path %q", name, m.Path)
		}
		fi, _ := os.Stat(filepath.Join(e.root, name))
		if !m.ReceivedAt.Equal(fi.ModTime()) {
			t.Errorf("%s: received %v; want the mtime %v", name, m.ReceivedAt, fi.ModTime())
		}
		if it.Problem != "" || len(it.Notes) != 0 {
			t.Errorf("%s: problem %q notes %q", name, it.Problem, it.Notes)
		}
	}
	if want := "plan.md@" + sum16("Intro line before the heading\n\n# Trip   to *Lisbon*\n\nBook   flights\nand the hotel.\n\n## Budget\n900 EUR\n"); items["plan.md"].Ref != want {
		t.Errorf("ref %q; want %q", items["plan.md"].Ref, want)
	}
	lt := items["long.txt"].Meta
	if n := len([]rune(lt.Title)); n > 120 || !strings.HasSuffix(lt.Title, "…") {
		t.Errorf("long title has %d runes (%q); want ≤ 120 ending with …", n, lt.Title)
	}
	if n := len([]rune(lt.Excerpt)); n > 280 || n < 200 || !strings.HasSuffix(lt.Excerpt, "…") {
		t.Errorf("long excerpt has %d runes; want about 280 ending with …", n)
	}
	if again := list(t, c); len(again) != 0 {
		t.Errorf("second scan found %v; want nothing", paths(t, again))
	}
}

func TestRestartNoDuplicatesAndCatchUp(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "# A\n")
	e.write("b.md", "# B\n")
	e.write("sub/c.md", "# C\n")
	c1 := e.open(e.cfg())
	if got := list(t, c1); len(got) != 3 {
		t.Fatalf("first run: %v; want 3 items", paths(t, got))
	}
	c1.Close()

	// While the agent is down: a new file, a changed one, a touched one
	// (new mtime, same content), a deleted one, a new folder.
	e.write("d.md", "# D\n")
	e.write("a.md", "# A, revised\n")
	later := time.Now().Add(-time.Minute)
	e.date("b.md", later)
	os.Remove(filepath.Join(e.root, "sub", "c.md"))
	e.write("new/deep/e.md", "# E\n")

	c2 := e.open(e.cfg())
	got := byPath(t, list(t, c2))
	if want := []string{"a.md", "d.md", "new/deep/e.md"}; !slices.Equal(paths(t, mapValues(got)), want) {
		t.Fatalf("after restart: %v; want %v", paths(t, mapValues(got)), want)
	}
	if r := got["a.md"].Meta.Reason; !strings.HasPrefix(r, "Changed file in ") {
		t.Errorf("changed file reason %q", r)
	}
	if got["a.md"].Ref != "a.md@"+sum16("# A, revised\n") {
		t.Errorf("changed file ref %q", got["a.md"].Ref)
	}
	sub, err := e.index().LoadDir(context.Background(), "sub")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sub["c.md"]; ok {
		t.Error("deleted file still in the index")
	}
	root, _ := e.index().LoadDir(context.Background(), "")
	if b := root["b.md"]; b.MtimeNs != later.UnixNano() || b.Hash == "" {
		t.Errorf("touched file's entry %+v: want the new mtime and its hash", b)
	}
	// A deleted folder goes from the index with all it held.
	if err := os.RemoveAll(filepath.Join(e.root, "new")); err != nil {
		t.Fatal(err)
	}
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("after deleting a folder: %v", paths(t, got))
	}
	for _, d := range []string{"new", "new/deep"} {
		if m, _ := e.index().LoadDir(context.Background(), d); len(m) != 0 {
			t.Errorf("index still holds %v in deleted folder %s", m, d)
		}
	}
}

func mapValues(m map[string]scouts.ItemRef) []scouts.ItemRef {
	var out []scouts.ItemRef
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestBaseline(t *testing.T) {
	e := newEnv(t)
	e.write("old.md", "# Old\n")
	e.write("sub/old2.txt", "old\n")
	e.write("arrived.md", "# Arrived after the scout was created\n")
	e.date("old.md", e.created.Add(-time.Hour))
	e.date("sub/old2.txt", e.created.Add(-3*time.Second))
	// A file written just after the scout was created may carry a slightly
	// earlier mtime (coarse kernel clock): it still counts as arrived.
	e.date("arrived.md", e.created.Add(-time.Second))

	cfg := e.cfg()
	cfg.IncludeExisting = false
	c := e.open(cfg)
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"arrived.md"}) {
		t.Fatalf("baseline scan found %v; want only arrived.md", got)
	}
	if v, _ := e.index().Cursor(context.Background(), "baseline"); v != "done" {
		t.Errorf("baseline cursor %q; want done", v)
	}
	if got := list(t, e.open(cfg)); len(got) != 0 {
		t.Errorf("after the baseline, a restart found %v", paths(t, got))
	}
	// After the baseline every new file counts, whatever its date.
	e.write("copied.md", "# Copied with an old date\n")
	e.date("copied.md", e.created.Add(-48*time.Hour))
	if got := paths(t, list(t, e.open(cfg))); !slices.Equal(got, []string{"copied.md"}) {
		t.Errorf("after the baseline: %v; want copied.md", got)
	}
}

func TestIncludeExisting(t *testing.T) {
	e := newEnv(t)
	e.write("old.md", "# Old\n")
	e.date("old.md", e.created.Add(-time.Hour))
	if got := paths(t, list(t, e.open(e.cfg()))); !slices.Equal(got, []string{"old.md"}) {
		t.Errorf("include_existing found %v; want old.md", got)
	}
}

func TestIncludeExcludeAndHidden(t *testing.T) {
	e := newEnv(t)
	for _, f := range []string{
		"a.md", "notes/b.md", "notes/deep/er/c.md", "d.txt",
		"drafts/x.md", "drafts/sub/y.md", // excluded folder: pruned
		"notes/tmp/z.md", "tmp/z2.md", // "**/tmp/*.md"
		".hidden.md", ".git/config.md", "notes/.obsidian/w.md", // hidden
		"e.md~", ".f.md.swp", "g.md.part", "h.crdownload", "#i.md#", // temp files
		"archive/old.md", // excluded by an anchored glob
	} {
		e.write(f, "# "+f+"\n")
	}
	cfg := e.cfg()
	cfg.Include = []string{"*.md", "*.part"}
	cfg.Exclude = []string{"drafts", "**/tmp/*.md", "/archive/**"}
	got := list(t, e.open(cfg))
	want := []string{"a.md", "notes/b.md", "notes/deep/er/c.md"}
	if !slices.Equal(paths(t, got), want) {
		t.Errorf("found %v; want %v", paths(t, got), want)
	}
	if r := byPath(t, got)["notes/b.md"].Meta.Reason; !strings.Contains(r, `(matches include "*.md")`) {
		t.Errorf("reason %q does not name the include glob", r)
	}
	if m, _ := e.index().LoadDir(context.Background(), "drafts"); len(m) != 0 {
		t.Errorf("excluded folder was listed: %v", m)
	}
}

func TestFiveThousandFilesInPages(t *testing.T) {
	e := newEnv(t)
	const dirs, per = 20, 250
	for d := range dirs {
		dir := filepath.Join(e.root, fmt.Sprintf("d%02d", d))
		os.Mkdir(dir, 0o755)
		for f := range per {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", f)), []byte(fmt.Sprintf("file %d/%d\n", d, f)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := e.open(e.cfg())
	pages := 0
	seen := map[string]bool{}
	err := c.ListNew(context.Background(), func(_ context.Context, items []scouts.ItemRef) error {
		pages++
		if len(items) > 256 {
			t.Errorf("page of %d items", len(items))
		}
		for _, it := range items {
			if seen[it.Ref] {
				t.Errorf("ref %s twice", it.Ref)
			}
			seen[it.Ref] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != dirs*per {
		t.Errorf("%d items; want %d", len(seen), dirs*per)
	}
	if pages < dirs*per/256 {
		t.Errorf("%d pages", pages)
	}
	if again := list(t, c); len(again) != 0 {
		t.Errorf("rescan found %d items", len(again))
	}
}

func TestPageErrorLeavesIndexUnchanged(t *testing.T) {
	e := newEnv(t)
	e.write("a.md", "# A\n")
	e.write("b.md", "# B\n")
	c := e.open(e.cfg())
	boom := errors.New("engine is down")
	err := c.ListNew(context.Background(), func(context.Context, []scouts.ItemRef) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("ListNew returned %v; want the page's error", err)
	}
	if m, _ := e.index().LoadDir(context.Background(), ""); len(m) != 0 {
		t.Errorf("index changed after a failed page: %v", m)
	}
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"a.md", "b.md"}) {
		t.Errorf("after a failed page the next run found %v; want both files again", got)
	}
	if got := list(t, c); len(got) != 0 {
		t.Errorf("third run: %v", paths(t, got))
	}
}

func TestSettleLeavesFreshFilesForLater(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg()
	cfg.Settle = directory.Duration(50 * time.Millisecond)
	c := e.open(cfg)
	n := watch(t, c)
	list(t, c)

	e.write("fresh.md", "# Being written\n")
	fi, _ := os.Stat(filepath.Join(e.root, "fresh.md"))
	e.setClock(func() time.Time { return fi.ModTime().Add(10 * time.Millisecond) })
	n.wait(t, "a file was written")
	n.drain()
	if got := list(t, c); len(got) != 0 {
		t.Fatalf("a file younger than Settle was reported: %v", paths(t, got))
	}
	if m, _ := e.index().LoadDir(context.Background(), ""); len(m) != 0 {
		t.Errorf("a file younger than Settle was indexed: %v", m)
	}
	n.wait(t, "a file was left to settle")
	e.setClock(func() time.Time { return fi.ModTime().Add(time.Second) })
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"fresh.md"}) {
		t.Errorf("once settled: %v; want fresh.md", got)
	}
}

// A file found younger than Settle is read once it has settled, counted
// from its modification time: the rescan waits exactly what the file lacks,
// not a whole Settle period more, so a file written once is deferred at
// most once and never by more than Settle in total.
func TestYoungFileWaitsOnlyUntilItSettles(t *testing.T) {
	e := newEnv(t)
	e.write("young.md", "# Young\n")
	mt := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	e.date("young.md", mt)
	now := mt.Add(100 * time.Millisecond)
	e.setClock(func() time.Time { return now })
	cfg := e.cfg()
	cfg.Settle = directory.Duration(250 * time.Millisecond)
	c := e.open(cfg)
	var mu sync.Mutex
	var delays []time.Duration
	directory.SetSettleDelay(c, func(d time.Duration) {
		mu.Lock()
		delays = append(delays, d)
		mu.Unlock()
	})

	if got := list(t, c); len(got) != 0 {
		t.Fatalf("a file younger than Settle was reported: %v", paths(t, got))
	}
	mu.Lock()
	got := slices.Clone(delays)
	mu.Unlock()
	want := 150*time.Millisecond + directory.SettleSlack
	if len(got) != 1 || got[0] != want {
		t.Fatalf("rescans scheduled after %v; want one after %v (the file's mtime + Settle)", got, want)
	}

	// When that rescan comes, the file is read: one deferral, no more.
	e.setClock(func() time.Time { return now.Add(got[0]) })
	if got := paths(t, list(t, c)); !slices.Equal(got, []string{"young.md"}) {
		t.Errorf("at the rescheduled scan: %v; want young.md", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(delays) != 1 {
		t.Errorf("%d rescans scheduled; want 1", len(delays))
	}
}
