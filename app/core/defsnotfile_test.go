package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder or a broken symbolic link named like a definition is reported
// on the folder's status, as a broken file is; both were skipped without
// a word, so a definition moved into a folder by mistake vanished.
func TestDefinitionsFolderReportsWhatIsNotAFile(t *testing.T) {
	ctx, c, defs := unstartedWithDefinitions(t)
	if err := os.Mkdir(filepath.Join(defs, "old.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "gone.yaml"), filepath.Join(defs, "gone.yaml")); err != nil {
		t.Fatal(err)
	}
	// A link to a definition is read as the definition; only a folder
	// named like one and a link to nothing are reported.
	real := filepath.Join(t.TempDir(), "real.yaml")
	if err := os.WriteFile(real, []byte(folderDef(t, "Scans", t.TempDir())), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(defs, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := c.ReconcileDefinitions(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range c.DefinitionErrors() {
		got[e.File] = e.Reason
	}
	if len(got) != 2 || !strings.Contains(got["old.json"], "not a regular file") || !strings.Contains(got["gone.yaml"], "not a regular file") {
		t.Errorf("the folder's problems: %q", got)
	}
	if list, _ := c.DB.ListScouts(ctx); len(list) != 1 {
		t.Errorf("%d scouts, want the linked definition's", len(list))
	}
}
