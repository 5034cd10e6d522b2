package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The agent starts, its address space limited to 3 GiB, with 4 GiB files
// (sparse) linked into its definitions folder — one from outside the
// folder, one in it — beside a good definition: both links are reported
// and the good file makes its scout. The whole file was read before its
// size was checked: "fatal error: out of memory" at every start.
func TestAgentStartsWithAHugeFileInItsDefinitions(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	defs := filepath.Join(home, "defs")
	if err := os.MkdirAll(defs, 0o700); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, big := range []string{filepath.Join(home, "big.bin"), filepath.Join(defs, "big.bin")} {
		must(os.WriteFile(big, nil, 0o600))
		must(os.Truncate(big, 4<<30))
	}
	must(os.Symlink(filepath.Join(home, "big.bin"), filepath.Join(defs, "big.yaml")))
	must(os.Symlink("big.bin", filepath.Join(defs, "huge.yaml")))
	must(os.WriteFile(filepath.Join(defs, "scans.yaml"), []byte(definitionFile("Scans", home)), 0o600))

	// ulimit -v counts KiB: 3 GiB, less than one of the files.
	limited := []string{"sh", "-c", `ulimit -v 3145728 && exec "$0" "$@"`}
	a := startAgentVia(t, limited, filepath.Join(home, "data"), home, nil, "--definitions", defs)
	// The first reconcile is over before the agent serves its API.
	st, err := a.client.DefinitionsStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range st.DefinitionErrors {
		got[e.File] = e.Reason
	}
	if !strings.Contains(got["big.yaml"], "leads outside the definitions folder") ||
		!strings.Contains(got["huge.yaml"], "larger than 1048576 bytes (4294967296 bytes): not read") || len(got) != 2 {
		t.Errorf("the folder's problems: %q", got)
	}
	if len(st.ManagedBy) != 1 {
		t.Errorf("managed scouts %v, want scans.yaml's", st.ManagedBy)
	}
}
