package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// Export a scout, edit the file, see the dry run, apply it, read the
// history and the diff, roll back; a broken file is reported with its line
// and changes nothing.
func TestDefinitionsFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	sc, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, Name: "Drop"})
	if err != nil {
		t.Fatal(err)
	}

	out, errOut, code := cli(t, dir, "export", sc.ID)
	if code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("export is not one JSON document: %v\n%s", err, out)
	}
	if doc["id"] != sc.ID || doc["kind"] != "folder" || doc["name"] != "Drop" {
		t.Fatalf("export: %s", out)
	}
	doc["name"] = "Scans"
	b, _ := json.MarshalIndent(doc, "", "  ")
	file := filepath.Join(t.TempDir(), "drop.json")
	os.WriteFile(file, b, 0o600)

	out, errOut, code = cli(t, dir, "import", file)
	if code != 0 || !strings.Contains(out, "update") || !strings.Contains(out, `"Scans"`) || !strings.Contains(out, "Dry run") {
		t.Fatalf("dry run: %d %q %q", code, out, errOut)
	}
	if s, _ := c.Scout(ctx, sc.ID); s.Name != "Drop" {
		t.Fatalf("a dry run renamed the scout to %q", s.Name)
	}
	out, errOut, code = cli(t, dir, "import", file, "--apply")
	if code != 0 || !strings.Contains(out, "updated") || !strings.Contains(out, "version 2") {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	if s, _ := c.Scout(ctx, sc.ID); s.Name != "Scans" {
		t.Fatalf("after import the scout is named %q", s.Name)
	}

	out, _, code = cli(t, dir, "history", sc.ID)
	if code != 0 || !strings.Contains(out, "VERSION") || !strings.Contains(out, "\n2 ") || !strings.Contains(out, "\n1 ") {
		t.Fatalf("history: %d %q", code, out)
	}
	out, _, code = cli(t, dir, "diff", sc.ID, "1", "2")
	if code != 0 || !strings.Contains(out, `name: "Drop" → "Scans"`) {
		t.Fatalf("diff: %d %q", code, out)
	}
	out, errOut, code = cli(t, dir, "rollback", sc.ID, "1")
	if code != 0 || !strings.Contains(out, "version 3") {
		t.Fatalf("rollback: %d %q %q", code, out, errOut)
	}
	if s, _ := c.Scout(ctx, sc.ID); s.Name != "Drop" {
		t.Fatalf("after rollback the scout is named %q", s.Name)
	}

	// YAML: the same definitions, read back by import as unchanged.
	out, errOut, code = cli(t, dir, "export", "--yaml")
	if code != 0 || !strings.HasPrefix(out, "version: 1\nid: "+sc.ID+"\nkind: folder\nname: Drop\n") || strings.Contains(out, "{") {
		t.Fatalf("export --yaml: %d %q %q", code, out, errOut)
	}
	yamlFile := filepath.Join(t.TempDir(), "scouts.yaml")
	os.WriteFile(yamlFile, []byte(out), 0o600)
	out, errOut, code = cli(t, dir, "import", yamlFile)
	if code != 0 || !strings.Contains(out, "unchanged") || strings.Contains(out, "update") {
		t.Fatalf("import of the YAML export: %d %q %q", code, out, errOut)
	}

	broken := filepath.Join(t.TempDir(), "broken.yaml")
	os.WriteFile(broken, []byte("version: 1\nkind: folder\nname: [oops\n"), 0o600)
	_, errOut, code = cli(t, dir, "import", broken, "--apply")
	if code == 0 || !strings.Contains(errOut, "broken.yaml:") {
		t.Fatalf("broken file: exit %d, stderr %q", code, errOut)
	}
	if _, _, code = cli(t, dir, "diff", sc.ID, "1", "x"); code != 2 {
		t.Fatalf("diff with a bad version exits %d, want 2", code)
	}
}

// The definitions folder: a file's scout says it is managed by the file,
// and a broken file shows in status with its line.
func TestDefinitionsFolderFromTheCommandLine(t *testing.T) {
	dir, _ := startTestAgent(t)
	defs := filepath.Join(dir, "config", "scouts.d")
	if fi, err := os.Stat(defs); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("definitions folder: %v %v", fi, err)
	}
	drop := filepath.Join(t.TempDir(), "Scans")
	os.MkdirAll(drop, 0o755)
	good, _ := json.Marshal(map[string]any{"version": 1, "kind": "folder", "name": "Scans", "enabled": true, "review": true,
		"source": map[string]any{"path": drop}})
	os.WriteFile(filepath.Join(defs, "scans.json"), good, 0o600)
	os.WriteFile(filepath.Join(defs, "bad.yaml"), []byte("version: 1\nkind: folder\nname: Bad\nreview: maybe\n"), 0o600)

	waitOutput(t, func() string { out, _, _ := cli(t, dir, "status"); return out }, "bad.yaml:4")
	waitOutput(t, func() string { out, _, _ := cli(t, dir, "scouts"); return out }, "managed by scans.json")
}

func waitOutput(t *testing.T, run func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := run()
		if strings.Contains(out, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %q in:\n%s", want, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
