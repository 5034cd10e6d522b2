package defsync_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// A definition's write scope is the scout's: imported, kept as written (a
// list left out stays the default, an empty one allows nothing), exported
// again, a change of it recorded as "write scope changed"; removed, the
// scout has the default again. A glob that could never be a folder's is
// refused with the definition's line.
func TestDefinitionWriteScope(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	dir := t.TempDir()
	base := folderDef(t, "Scans", dir)
	imp := func(doc string) error {
		docs, err := definition.ParseAll("scans.yaml", []byte(doc))
		if err != nil {
			return err
		}
		_, err = c.Definitions().Import(ctx, docs, defsync.ImportOptions{Apply: true, Actor: "test"})
		return err
	}
	if err := imp(base + "write_scope:\n  folders: [\"~/Archive/**\"]\n  hosts: []\n"); err != nil {
		t.Fatal(err)
	}
	id := onlyScout(t, c)
	sc, _ := c.DB.GetScout(ctx, id)
	if fmt.Sprint(sc.WriteScope.Folders) != "[~/Archive/**]" || sc.WriteScope.Hosts == nil || len(sc.WriteScope.Hosts) != 0 || sc.WriteScope.Labels != nil {
		t.Fatalf("stored scope %#v", sc.WriteScope)
	}
	docs, err := c.Definitions().Export(ctx, []string{id}, defsync.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := definition.Marshal(docs[0])
	if !strings.Contains(string(out), `"write_scope": {
    "folders": [
      "~/Archive/**"
    ],
    "hosts": []
  }`) {
		t.Fatalf("export:\n%s", out)
	}

	if err := imp(base + "write_scope:\n  folders: [\"~/Archive/**\", \"~/Sorted/**\"]\n  hosts: []\n"); err != nil {
		t.Fatal(err)
	}
	hist, _ := c.Definitions().History(ctx, id)
	if hist[0].Note != "write scope changed" {
		t.Fatalf("newest version's note %q", hist[0].Note)
	}
	if err := imp(base); err != nil {
		t.Fatal(err)
	}
	if sc, _ = c.DB.GetScout(ctx, id); !sc.WriteScope.IsZero() {
		t.Fatalf("a definition without a scope left %#v", sc.WriteScope)
	}
	docs, _ = c.Definitions().Export(ctx, []string{id}, defsync.ExportOptions{})
	if docs[0].WriteScope != nil {
		t.Fatalf("the default scope was exported: %+v", docs[0].WriteScope)
	}

	for _, bad := range []string{
		"write_scope:\n  folders: [\"Sorted\"]\n",
		"write_scope:\n  folders: [\"~/Sorted/../.ssh\"]\n",
		"write_scope:\n  hosts: [\"https://hooks.example.com/in\"]\n",
	} {
		err := imp(base + bad)
		if scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "write_scope.") {
			t.Errorf("%q: %v, want a refusal naming the write scope", bad, err)
		}
	}
	if err := imp(base + "write_scope:\n  places: [\"~\"]\n"); err == nil || !strings.Contains(err.Error(), "places") {
		t.Errorf("an unknown key of the scope: %v", err)
	}
}
