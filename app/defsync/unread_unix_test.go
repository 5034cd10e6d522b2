//go:build unix

package defsync_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe in the folder, or a link to one, is reported without
// being opened: opening one for reading waits for a writer, and the
// agent's start waited forever. A link leading outside the folder is
// reported and not read (to a named pipe outside, which would never
// come back, or to a definition, which made a scout). A 4 GiB file
// (sparse) linked into the folder is reported as too large.
func TestDefinitionsFolderDoesNotReadPipesLinksOutOrHugeFiles(t *testing.T) {
	ctx, c, defs := unstartedWithDefinitions(t)
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(syscall.Mkfifo(filepath.Join(defs, "pipe.yaml"), 0o600))
	must(syscall.Mkfifo(filepath.Join(outside, "pipe"), 0o600))
	must(os.Symlink(filepath.Join(outside, "pipe"), filepath.Join(defs, "out.yaml")))
	must(os.WriteFile(filepath.Join(outside, "hooks.yaml"), []byte("version: 1\nkind: webhook\nname: Hooks\n"), 0o600))
	must(os.Symlink(filepath.Join(outside, "hooks.yaml"), filepath.Join(defs, "hooks.yaml")))
	must(os.WriteFile(filepath.Join(defs, "big.bin"), nil, 0o600))
	must(os.Truncate(filepath.Join(defs, "big.bin"), 4<<30))
	must(os.Symlink(filepath.Join(defs, "big.bin"), filepath.Join(defs, "big.yaml")))
	must(os.WriteFile(filepath.Join(defs, "scans.yaml"), []byte(folderDef(t, "Scans", t.TempDir())), 0o600))

	done := make(chan error, 1)
	go func() { done <- c.Definitions().Reconcile(ctx) }()
	select {
	case err := <-done:
		must(err)
	case <-time.After(time.Minute): // a hang guard, not a timing: the reconcile never came back
		t.Fatal("the reconcile never came back: it opened a named pipe for reading")
	}
	got := map[string]string{}
	for _, e := range c.Definitions().Errors() {
		got[e.File] = e.Reason
	}
	for file, want := range map[string]string{
		"pipe.yaml":  "not a regular file: a named pipe",
		"out.yaml":   "leads outside the definitions folder",
		"hooks.yaml": "leads outside the definitions folder",
		"big.yaml":   "larger than 1048576 bytes (4294967296 bytes): not read",
	} {
		if !strings.Contains(got[file], want) {
			t.Errorf("%s: %q, want %q", file, got[file], want)
		}
	}
	if len(got) != 4 {
		t.Errorf("the folder's problems %q", got)
	}
	if list, _ := c.DB.ListScouts(ctx); len(list) != 1 {
		t.Errorf("%d scouts, want scans.yaml's", len(list))
	}
}
