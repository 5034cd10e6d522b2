package localapi_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

func TestFoldersListsSubfoldersForTheChooser(t *testing.T) {
	srv, _ := newServer(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{"Papers", "Inbox", ".cache", "Inbox/deeper"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, "notes.txt"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(home, "Papers"), filepath.Join(home, "Linked"))
	os.Symlink(filepath.Join(home, "notes.txt"), filepath.Join(home, "file-link"))

	list := func(query string) apitype.Folders {
		t.Helper()
		status, _, body := call(t, srv, "GET", "/api/v1/folders"+query, "")
		if status != 200 {
			t.Fatalf("folders%s: %d %s", query, status, body)
		}
		var f apitype.Folders
		if err := json.Unmarshal(body, &f); err != nil {
			t.Fatal(err)
		}
		return f
	}

	// Default: the home folder; sorted; no files, no hidden folders; links
	// to folders count as folders.
	f := list("")
	if f.Path != home || f.Parent != filepath.Dir(home) || !slices.Equal(f.Dirs, []string{"Inbox", "Linked", "Papers"}) || f.Truncated {
		t.Fatalf("home listing = %+v", f)
	}
	if f := list("?hidden=1&path=" + home); !slices.Equal(f.Dirs, []string{".cache", "Inbox", "Linked", "Papers"}) {
		t.Fatalf("with hidden = %v", f.Dirs)
	}
	if f := list("?path=" + filepath.Join(home, "Inbox", "deeper", "..")); f.Path != filepath.Join(home, "Inbox") || !slices.Equal(f.Dirs, []string{"deeper"}) {
		t.Fatalf("cleaned path = %+v", f)
	}
	if f := list("?path=" + filepath.Join(home, "Inbox", "deeper")); f.Dirs == nil || len(f.Dirs) != 0 {
		t.Fatalf("an empty folder lists [] (not null): %+v", f)
	}
	if f := list("?path=/"); f.Path != "/" || f.Parent != "" {
		t.Fatalf("root = path %q parent %q", f.Path, f.Parent)
	}

	cases := []struct {
		query   string
		status  int
		code    string
		mention string
	}{
		{"?path=relative/dir", 400, "invalid", "not absolute"},
		{"?path=" + filepath.Join(home, "nope"), 404, "not_found", "does not exist"},
		{"?path=" + filepath.Join(home, "notes.txt"), 400, "invalid", "is a file, not a folder"},
	}
	for _, c := range cases {
		status, e, _ := call(t, srv, "GET", "/api/v1/folders"+c.query, "")
		if status != c.status || e.Code != c.code || !strings.Contains(e.Error, c.mention) {
			t.Errorf("folders%s: %d %q %q, want %d %q mentioning %q", c.query, status, e.Code, e.Error, c.status, c.code, c.mention)
		}
	}
}

func TestFoldersStopsAtAThousand(t *testing.T) {
	srv, _ := newServer(t)
	dir := t.TempDir()
	for i := range 1005 {
		if err := os.Mkdir(filepath.Join(dir, fmt.Sprintf("d%04d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, _, body := call(t, srv, "GET", "/api/v1/folders?path="+dir, "")
	var f apitype.Folders
	json.Unmarshal(body, &f)
	if len(f.Dirs) != 1000 || !f.Truncated || f.Dirs[0] != "d0000" || f.Dirs[999] != "d0999" {
		t.Fatalf("%d dirs, truncated %v, first %q", len(f.Dirs), f.Truncated, f.Dirs[0])
	}
}
