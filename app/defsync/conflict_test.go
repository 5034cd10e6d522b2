package defsync_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two files without ids define one scout (same name and kind, each
// watching a folder of its own): the file
// that made it keeps it, and the other is refused for good, as a second
// file naming its id is. The scout switched files at every reconcile,
// each switch a version "file two.yaml changed" that nobody made, and the
// conflict was reported every other time.
func TestTwoFilesForOneScoutDoNotFlap(t *testing.T) {
	ctx, c, defs := unstartedWithDefinitions(t)
	for _, f := range []string{"one.yaml", "two.yaml"} {
		if err := os.WriteFile(filepath.Join(defs, f), []byte(folderDef(t, "Scans", t.TempDir())), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var id string
	for i := range 6 {
		if err := c.Definitions().Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		list, _ := c.DB.ListScouts(ctx)
		if len(list) != 1 {
			t.Fatalf("reconcile %d: %d scouts", i+1, len(list))
		}
		id = list[0].ID
		by, _ := c.Definitions().ManagedBy(ctx)
		if by[id] != "file:one.yaml" {
			t.Errorf("reconcile %d: the scout is managed by %q, want the file that made it", i+1, by[id])
		}
		errs := c.Definitions().Errors()
		if len(errs) != 1 || errs[0].File != "two.yaml" || !strings.Contains(errs[0].Reason, "already managed by one.yaml") {
			t.Errorf("reconcile %d: the folder's problems %+v, want two.yaml's conflict", i+1, errs)
		}
	}
	hist, err := c.Definitions().History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 {
		for _, v := range hist {
			t.Logf("version %d by %s: %s", v.Version, v.Actor, v.Note)
		}
		t.Fatalf("%d versions after six reconciles of files nobody edited, want the one that created it", len(hist))
	}

	// The file that made it gone, the other takes the scout over (a
	// file renamed), and keeps it.
	if err := os.Remove(filepath.Join(defs, "one.yaml")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.Definitions().Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
	}
	by, _ := c.Definitions().ManagedBy(ctx)
	if by[id] != "file:two.yaml" || len(c.Definitions().Errors()) != 0 {
		t.Fatalf("after one.yaml went: managed by %q, problems %+v", by[id], c.Definitions().Errors())
	}
}

// A file that renames its scout and a new file naming the scout's old
// name, in either order of their names: the owner is read first, so the
// new file makes a scout of its own at once instead of a conflict that
// would stay until the folder next changes.
func TestOwnerFileReadBeforeANewcomer(t *testing.T) {
	for _, files := range [][2]string{{"a.yaml", "b.yaml"}, {"b.yaml", "a.yaml"}} {
		ctx, c, defs := unstartedWithDefinitions(t)
		owner, newcomer := files[0], files[1]
		writeDefinition(t, c, filepath.Join(defs, owner), folderDef(t, "Scans", t.TempDir()))
		if err := os.WriteFile(filepath.Join(defs, owner), []byte(folderDef(t, "Letters", t.TempDir())), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(defs, newcomer), []byte(folderDef(t, "Scans", t.TempDir())), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := c.Definitions().Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		list, _ := c.DB.ListScouts(ctx)
		if len(list) != 2 || len(c.Definitions().Errors()) != 0 {
			t.Errorf("owner %s, newcomer %s: %d scouts, problems %+v", owner, newcomer, len(list), c.Definitions().Errors())
		}
	}
}
