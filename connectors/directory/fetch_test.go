package directory_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/connectors/directory"
	"github.com/scouts-hq/scouts/scouts"
)

func TestFetchContentAndMetadata(t *testing.T) {
	e := newEnv(t)
	e.write("n.md", "# Title\nbody\n")
	e.write("t.txt", "plain\n")
	e.write("b.bin", "\x00\x01\x02")
	e.write("big.txt", strings.Repeat("é", 600_000)) // 1.2 MB; the cut falls inside a rune
	c := e.open(e.cfg())
	ctx := context.Background()
	refs := map[string]string{}
	for _, it := range list(t, c) {
		rel, _, _ := directory.ParseRef(it.Ref)
		refs[rel] = it.Ref
	}

	got, err := c.FetchContent(ctx, refs["n.md"])
	if err != nil || got.Text != "# Title\nbody\n" || got.ContentType != "text/markdown" || got.Truncated {
		t.Errorf("markdown: %+v, %v", got, err)
	}
	got, err = c.FetchContent(ctx, refs["t.txt"])
	if err != nil || got.Text != "plain\n" || got.ContentType != "text/plain" {
		t.Errorf("text: %+v, %v", got, err)
	}
	got, err = c.FetchContent(ctx, refs["b.bin"])
	if err != nil || got.Text != "" || got.ContentType != "application/octet-stream" {
		t.Errorf("binary: %+v, %v", got, err)
	}
	got, err = c.FetchContent(ctx, refs["big.txt"])
	if err != nil || !got.Truncated || got.ContentType != "text/plain" || len(got.Text) != 1<<20 || !strings.HasPrefix(got.Text, "éé") {
		t.Errorf("big: %d bytes truncated=%v type=%s err=%v", len(got.Text), got.Truncated, got.ContentType, err)
	}

	// The current content, even when the ref names an older version.
	e.write("n.md", "# Title\nnewer body\n")
	got, err = c.FetchContent(ctx, refs["n.md"])
	if err != nil || got.Text != "# Title\nnewer body\n" {
		t.Errorf("changed file: %+v, %v", got, err)
	}
	meta, err := c.FetchMetadata(ctx, refs["n.md"])
	if err != nil || meta.Title != "Title" || meta.Excerpt != "newer body" || meta.ProposedKind != scouts.EntityNote || meta.Path != filepath.Join(e.root, "n.md") {
		t.Errorf("metadata: %+v, %v", meta, err)
	}

	os.Remove(filepath.Join(e.root, "t.txt"))
	var skip *scouts.SkipError
	if _, err := c.FetchContent(ctx, refs["t.txt"]); !errors.As(err, &skip) || !strings.Contains(skip.Reason, "no longer exists") {
		t.Errorf("missing file: %v; want a SkipError saying it no longer exists", err)
	}
	if _, err := c.FetchMetadata(ctx, refs["t.txt"]); !errors.As(err, &skip) {
		t.Errorf("missing file metadata: %v; want a SkipError", err)
	}
	for _, bad := range []string{"../../etc/passwd@", "/etc/passwd@"} {
		if _, err := c.FetchContent(ctx, bad); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("FetchContent(%q) = %v; want EInvalid", bad, err)
		}
	}
	outside := filepath.Join(filepath.Dir(e.root), "secret.md")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(e.root, "leak.md"))
	if got, err := c.FetchContent(ctx, "leak.md@"); err == nil || strings.Contains(got.Text, "secret") {
		t.Errorf("FetchContent followed a link out of the root: %+v, %v", got, err)
	}
}
