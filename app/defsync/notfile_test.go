package defsync_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder or a broken symbolic link named like a definition is reported
// on the folder's status, as a broken file is; both were skipped without
// a word, so a definition moved into a folder by mistake vanished. So is
// a link leading outside the folder (TestDefinitionsFolderDoesNotReadPipesLinksOutOrHugeFiles).
func TestDefinitionsFolderReportsWhatIsNotAFile(t *testing.T) {
	ctx, c, defs := unstartedWithDefinitions(t)
	if err := os.Mkdir(filepath.Join(defs, "old.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "gone.yaml"), filepath.Join(defs, "gone.yaml")); err != nil {
		t.Fatal(err)
	}
	// A link to a definition in the folder is read as the definition; one
	// leading outside the folder is reported and not read.
	if err := os.Mkdir(filepath.Join(defs, "kept"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(defs, "kept", "real"), []byte(folderDef(t, "Scans", t.TempDir())), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("kept", "real"), filepath.Join(defs, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "real.yaml")
	if err := os.WriteFile(outside, []byte(folderDef(t, "Letters", t.TempDir())), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(defs, "outside.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := c.Definitions().Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range c.Definitions().Errors() {
		got[e.File] = e.Reason
	}
	if len(got) != 3 || !strings.Contains(got["old.json"], "not a regular file") || !strings.Contains(got["gone.yaml"], "not a regular file") ||
		!strings.Contains(got["outside.yaml"], "leads outside the definitions folder") {
		t.Errorf("the folder's problems: %q", got)
	}
	if list, _ := c.DB.ListScouts(ctx); len(list) != 1 {
		t.Errorf("%d scouts, want the linked definition's", len(list))
	}
}
