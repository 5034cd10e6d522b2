package defsync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
)

// Renaming a definitions file is not removing its scout: the scout stays
// on and is managed by the file under its new name, whether the file
// names the scout's id (as a file the agent wrote does) or only its name.
// Read once after the rename, it was disabled and left unmanaged, the new
// file reported as "already managed by" the old name.
func TestDefinitionsFileRenamed(t *testing.T) {
	for _, withID := range []bool{true, false} {
		t.Run(fmt.Sprintf("id=%v", withID), func(t *testing.T) {
			// Not started: the test reconciles itself, once per change,
			// as the watcher does after a quiet moment.
			ctx, c, defs := unstartedWithDefinitions(t)
			watched := t.TempDir()
			id := writeDefinition(t, c, filepath.Join(defs, "a-scans.yaml"), folderDef(t, "Scans", watched))
			if withID {
				writeDefinition(t, c, filepath.Join(defs, "a-scans.yaml"), fmt.Sprintf("id: %s\n%s", id, folderDef(t, "Scans", watched)))
			}

			if err := os.Rename(filepath.Join(defs, "a-scans.yaml"), filepath.Join(defs, "z-scans.yaml")); err != nil {
				t.Fatal(err)
			}
			if err := c.Definitions().Reconcile(ctx); err != nil {
				t.Fatal(err)
			}
			s, err := c.DB.GetScout(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			by, _ := c.Definitions().ManagedBy(ctx)
			if !s.Enabled || by[id] != "file:z-scans.yaml" || len(c.Definitions().Errors()) != 0 {
				t.Fatalf("after the rename: enabled %v, managed by %q, errors %+v", s.Enabled, by[id], c.Definitions().Errors())
			}
			if list, _ := c.DB.ListScouts(ctx); len(list) != 1 {
				t.Fatalf("the rename made %d scouts", len(list))
			}
		})
	}
}

// unstartedWithDefinitions opens a core with a definitions folder of its
// own, not started: the test reconciles the folder itself
// (Reconcile), once per change, as the watcher does after a
// quiet moment.
func unstartedWithDefinitions(t *testing.T) (context.Context, *core.Core, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defs := t.TempDir()
	c, err := core.Open(ctx, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); cancel() })
	return ctx, c, defs
}
