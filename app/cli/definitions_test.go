package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
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

	waitOutput(t, dir, func() string { out, _, _ := cli(t, dir, "status"); return out }, "bad.yaml:4")
	waitOutput(t, dir, func() string { out, _, _ := cli(t, dir, "scouts"); return out }, "managed by scans.json")
}

// waitOutput waits until what run prints contains want, running it again
// after each event of the agent of dir.
func waitOutput(t *testing.T, dir string, run func() string, want string) {
	t.Helper()
	var out string
	awaitAgent(t, localclient.NewSocket(datadir.SocketPath(dir)), strconv.Quote(want)+" in the output", func() bool {
		out = run()
		return strings.Contains(out, want)
	})
}

// normalJSON is a JSON answer with its objects' keys in one order, so
// that two agents' answers compare by meaning.
func normalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// The round trip from the command line: export a scout with its history
// (as YAML), import it into a fresh agent — the dry run says which
// versions it would add — and the new agent shows the same versions and
// rules. Where the scout has another history the import is refused,
// naming --no-history, which imports the definition alone.
func TestHistoryRoundTripFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	sc, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, Name: "Drop"})
	if err != nil {
		t.Fatal(err)
	}
	rule := filepath.Join(t.TempDir(), "rule.json")
	os.WriteFile(rule, []byte(`{"id":"pdfs","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show"}}`), 0o600)
	for _, args := range [][]string{{"scouts", "rules", "add", sc.ID, rule}, {"scouts", "rules", "disable", sc.ID, "pdfs"}} {
		if out, errOut, code := cli(t, dir, args...); code != 0 {
			t.Fatalf("%v: %d %s %s", args, code, out, errOut)
		}
	}
	export, errOut, code := cli(t, dir, "export", sc.ID, "--history", "--yaml")
	if code != 0 || !strings.Contains(export, "\nhistory:\n") || !strings.Contains(export, "note: rule \"pdfs\" added") {
		t.Fatalf("export --history --yaml: %d %q %q", code, export, errOut)
	}
	file := filepath.Join(t.TempDir(), "drop.yaml")
	os.WriteFile(file, []byte(export), 0o600)
	// The versions as they are; the rules but when each row was written
	// (not part of a definition: an import writes them anew).
	state := func(dir string) string {
		hist, errOut, code := cli(t, dir, "history", sc.ID, "--json")
		if code != 0 {
			t.Fatalf("history: %d %s", code, errOut)
		}
		out, errOut, code := cli(t, dir, "scouts", "rules", sc.ID, "--json")
		var rules struct {
			Rules []map[string]any `json:"rules"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rules) != nil || len(rules.Rules) != 1 {
			t.Fatalf("rules: %d %s %s", code, out, errOut)
		}
		for _, r := range rules.Rules {
			delete(r, "created_at")
			delete(r, "updated_at")
		}
		b, _ := json.Marshal(rules)
		return normalJSON(t, hist) + normalJSON(t, string(b))
	}
	want := state(dir)

	fresh, _ := startTestAgent(t)
	out, errOut, code := cli(t, fresh, "import", file)
	if code != 0 || !strings.Contains(out, "create  folder scout \"Drop\"") || !strings.Contains(out, "history: would add 3 past versions (versions 1–3)") {
		t.Fatalf("dry run: %d %q %q", code, out, errOut)
	}
	out, errOut, code = cli(t, fresh, "import", file, "--apply")
	if code != 0 || !strings.Contains(out, "created  folder scout \"Drop\" ("+sc.ID+"), version 3") || !strings.Contains(out, "history: adds 3 past versions") {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	if got := state(fresh); got != want {
		t.Fatalf("after the round trip:\n%s\nwant:\n%s", got, want)
	}

	other, _ := startTestAgent(t)
	if out, errOut, code := cli(t, other, "import", file, "--apply", "--no-history"); code != 0 || !strings.Contains(out, "version 1") {
		t.Fatalf("--no-history: %d %q %q", code, out, errOut)
	}
	_, errOut, code = cli(t, other, "import", file, "--apply")
	if code != 1 || !strings.Contains(errOut, "drop.yaml: definition 1 (Drop): scout "+sc.ID+" has another history: its version 1 is not the one in the import") ||
		!strings.Contains(errOut, "--no-history") {
		t.Fatalf("history onto another: exit %d, %q", code, errOut)
	}
}
