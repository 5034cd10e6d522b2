package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
)

// A secret named by a definition stays in the keyring: its value is in
// no export, no import answer and nowhere in the database files (which
// hold the scout_versions table).
func TestDefinitionsNeverHoldASecretsValue(t *testing.T) {
	const planted = "PLANTED-s3cret-value-7f3a9c"
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Config{DataDir: dir, ConfigDir: filepath.Join(dir, "config"), Version: "test",
			Keyring: "file", Getenv: func(k string) string {
				if k == "SCOUTS_KEYRING_PASSPHRASE" {
					return "a long test passphrase for the file keyring"
				}
				return ""
			},
			Ready: func(string) { close(ready) }})
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("agent: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("agent stopped before answering: %v", err)
	}
	c := localclient.NewSocket(datadir.SocketPath(dir))
	bg := context.Background()
	if err := c.SetSecret(bg, "crm-token", planted); err != nil {
		t.Fatal(err)
	}

	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	def := map[string]any{"version": 1, "kind": "folder", "name": "Drop", "enabled": true, "review": true,
		"source": map[string]any{"path": drop},
		"rules": []any{map[string]any{"id": "pdfs-to-crm", "name": "pdfs to the CRM", "when": map[string]any{"ext": map[string]any{"equals": "pdf"}},
			"then": map[string]any{"verdict": "show", "kind": "note", "actions": []any{map[string]any{"action": "webhook.post",
				"params": map[string]any{"url": "https://crm.example/hook", "secret": map[string]any{"secret": "crm-token"}}}}}}}}
	b, _ := json.Marshal(def)
	file := filepath.Join(t.TempDir(), "drop.json")
	os.WriteFile(file, b, 0o600)
	var seen bytes.Buffer
	out, errOut, code := cli(t, dir, "import", file, "--apply")
	seen.WriteString(out + errOut)
	if code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "export")
	seen.WriteString(out + errOut)
	if code != 0 || !strings.Contains(out, `"crm-token"`) {
		t.Fatalf("export names the secret by reference: %d %s %s", code, out, errOut)
	}
	// A second version (the rule switched off), so the history has a
	// past document naming the secret too.
	list, _ := c.Scouts(bg)
	for _, s := range list {
		if out, errOut, code := cli(t, dir, "scouts", "rules", "disable", s.ID, "pdfs-to-crm"); code != 0 {
			t.Fatalf("rules disable: %d %s %s", code, out, errOut)
		}
	}
	out, errOut, code = cli(t, dir, "export", "--history")
	seen.WriteString(out + errOut)
	if code != 0 || strings.Count(out, `"crm-token"`) != 3 {
		t.Fatalf("an export with history names the secret by reference, in both versions and the current one: %d %s %s", code, out, errOut)
	}
	for _, s := range list {
		for _, args := range [][]string{{"history", s.ID, "--json"}, {"export", s.ID}, {"export", s.ID, "--history"},
			{"export", "--history", "--yaml"}} {
			out, errOut, _ := cli(t, dir, args...)
			seen.WriteString(out + errOut)
		}
	}
	if strings.Contains(seen.String(), planted) {
		t.Fatalf("the CLI printed the secret's value:\n%s", seen.String())
	}

	// The database and its WAL, read as bytes once the agent has stopped;
	// the file keyring is encrypted and is where the value belongs.
	stop()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == "keyring" {
				return filepath.SkipDir
			}
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(planted)) {
			t.Errorf("%s holds the secret's value", filepath.Base(p))
		}
		return nil
	})
}
