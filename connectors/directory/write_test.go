package directory_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

func TestWriteFileIsNotSuggested(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg()
	cfg.Settle = directory.Duration(20 * time.Millisecond)
	c := e.open(cfg)
	n := watch(t, c)
	list(t, c)

	ctx := context.Background()
	if err := c.WriteFile(ctx, "Notes/2024/from-scouts.md", []byte("# Written by Scouts\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(e.root, "Notes", "2024", "from-scouts.md"))
	if err != nil || string(got) != "# Written by Scouts\n" {
		t.Fatalf("written file: %q, %v", got, err)
	}
	n.wait(t, "WriteFile")
	if items := list(t, c); len(items) != 0 {
		t.Errorf("incremental scan suggested Scouts' own file: %v", paths(t, items))
	}
	// Overwriting is atomic and recorded too.
	if err := c.WriteFile(ctx, "Notes/2024/from-scouts.md", []byte("# Written again\n")); err != nil {
		t.Fatal(err)
	}
	if items := list(t, e.open(cfg)); len(items) != 0 {
		t.Errorf("full scan after a restart suggested Scouts' own file: %v", paths(t, items))
	}
	if ents, _ := os.ReadDir(filepath.Join(e.root, directory.TempDirName)); len(ents) != 0 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	// A file the user writes next to it is still an item.
	e.write("Notes/2024/by-user.md", "# Mine\n")
	if items := paths(t, list(t, e.open(cfg))); !slices.Equal(items, []string{"Notes/2024/by-user.md"}) {
		t.Errorf("found %v; want the user's file", items)
	}
	for _, bad := range []string{"../escape.md", "/etc/passwd", "a/../../b", "", directory.TempDirName + "/x"} {
		if err := c.WriteFile(ctx, bad, []byte("x")); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("WriteFile(%q) = %v; want EInvalid", bad, err)
		}
	}
	// Never through a link, even one that stays inside.
	os.Mkdir(filepath.Join(e.root, "real"), 0o755)
	os.Symlink("real", filepath.Join(e.root, "link"))
	if err := c.WriteFile(ctx, "link/x.md", []byte("x")); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Errorf("WriteFile through a link = %v; want EInvalid", err)
	}
}

func TestArchive(t *testing.T) {
	e := newEnv(t)
	e.write("inbox/report.md", "# Report\n")
	c := e.open(e.cfg())
	ctx := context.Background()
	items := list(t, c)
	if len(items) != 1 {
		t.Fatalf("items %v", paths(t, items))
	}
	ref := items[0].Ref
	if err := c.Archive(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.root, "inbox", "report.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("source still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(e.root, "Archive", "inbox", "report.md")); err != nil || string(b) != "# Report\n" {
		t.Errorf("archived file: %q, %v", b, err)
	}
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("archived file suggested again: %v", paths(t, got))
	}
	// Archiving again (a retry after success) is fine.
	if err := c.Archive(ctx, ref); err != nil {
		t.Errorf("second Archive of the same ref: %v", err)
	}
	// A collision gets a numbered name.
	e.write("inbox/report.md", "# Report, take two\n")
	items = list(t, c)
	if len(items) != 1 {
		t.Fatalf("items %v", paths(t, items))
	}
	if err := c.Archive(ctx, items[0].Ref); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(e.root, "Archive", "inbox", "report (2).md")); err != nil || string(b) != "# Report, take two\n" {
		t.Errorf("second archived file: %q, %v", b, err)
	}
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("archived files suggested: %v", paths(t, got))
	}
	for _, bad := range []string{"../x.md@", "/etc/passwd@", `..\x2fetc@`, "inbox/../../x@", "no-at-sign"} {
		if err := c.Archive(ctx, bad); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("Archive(%q) = %v; want EInvalid", bad, err)
		}
	}
	if err := c.Archive(ctx, "missing.md@0123456789abcdef"); scouts.ErrorCode(err) != scouts.ENotFound {
		t.Errorf("Archive of a missing file = %v; want ENotFound", err)
	}
	// Refs are resolved without following links.
	e.write("real/f.md", "# F\n")
	os.Symlink("real", filepath.Join(e.root, "lnk"))
	if err := c.Archive(ctx, "lnk/f.md@"); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Errorf("Archive through a link = %v; want EInvalid", err)
	}
	if _, err := os.Stat(filepath.Join(e.root, "real", "f.md")); err != nil {
		t.Errorf("file behind the link was moved: %v", err)
	}
}

// WriteFile may run while a scan waits on the engine with a page: what it
// records must survive the scan's own index update for that page.
func TestWriteFileDuringScan(t *testing.T) {
	e := newEnv(t)
	for i := range 300 {
		e.write(fmt.Sprintf("f%03d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	c := e.open(e.cfg())
	ctx := context.Background()
	pages := 0
	var rewritten string
	err := c.ListNew(ctx, func(_ context.Context, items []scouts.ItemRef) error {
		pages++
		if pages == 1 {
			// Overwrite a file of this very page (its index update is
			// pending) and add one the scan may list later.
			rewritten, _, _ = directory.ParseRef(items[0].Ref)
			if err := c.WriteFile(ctx, rewritten, []byte("rewritten by Scouts, longer than before\n")); err != nil {
				return err
			}
			return c.WriteFile(ctx, "zzz-new.txt", []byte("new from Scouts\n"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := list(t, e.open(e.cfg())); len(got) != 0 {
		t.Errorf("after a restart the scout suggested %v; want nothing (Scouts wrote them)", paths(t, got))
	}
	m, _ := e.index().LoadDir(ctx, "")
	if m[rewritten].Size != int64(len("rewritten by Scouts, longer than before\n")) {
		t.Errorf("index entry of the rewritten file %+v", m[rewritten])
	}
}
