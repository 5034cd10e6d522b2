package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/agent"
	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

// startAgentWithModel is startTestAgent with the fake model.
func startAgentWithModel(t *testing.T) (string, *localclient.Client, *triagetest.Server) {
	t.Helper()
	model := triagetest.New("key", "drafter")
	t.Cleanup(model.Close)
	m, err := llm.New(llm.Config{BaseURL: model.BaseURL(), Model: "drafter", APIKey: "key"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Config{DataDir: dir, ConfigDir: filepath.Join(dir, "config"), Version: "test",
			Model: m, ModelDailyTokens: 100_000, Ready: func(string) { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("agent stopped before answering: %v", err)
	}
	return dir, localclient.NewSocket(datadir.SocketPath(dir)), model
}

// scouts scouts edit ID --describe "…": the change is printed as a diff
// with the risks it adds; without a terminal and without --yes nothing is
// saved and the command says how to save; with --yes it is saved as a new
// version noted with the words.
func TestEditAScoutInWordsFromTheCommandLine(t *testing.T) {
	dir, c, model := startAgentWithModel(t)
	ctx := context.Background()
	drop := filepath.Join(t.TempDir(), "Drop")
	os.MkdirAll(drop, 0o755)
	sc, err := c.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: drop, Name: "Drop"})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := c.ScoutVersions(ctx, sc.ID)
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions: %v %v", vs, err)
	}
	var doc map[string]any
	json.Unmarshal(vs[0].Document, &doc)
	doc["rules"] = []any{map[string]any{"id": "newsletters", "when": map[string]any{"name": map[string]any{"contains": "newsletter"}},
		"then": map[string]any{"verdict": "screen", "actions": []any{map[string]any{"action": "file.move", "params": map[string]any{"to": "~/Archive/Newsletters"}}}}}}
	doc["write_scope"] = map[string]any{"folders": []any{"~/Archive/Newsletters"}}
	answer, _ := json.Marshal(doc)
	model.Script(triagetest.Turn{Content: string(answer)}, triagetest.Turn{Content: string(answer)})

	// Standard input is not a terminal here (a temporary file).
	stdin, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out, errOut strings.Builder
	code := Main([]string{"scouts", "edit", sc.ID, "--describe", "also archive the newsletters", "--data", dir},
		Env{Stdout: &out, Stderr: &errOut, Stdin: stdin, Version: "test"})
	if code != 1 || !strings.Contains(errOut.String(), "--yes") {
		t.Fatalf("without a terminal: %d %q %q", code, out.String(), errOut.String())
	}
	for _, want := range []string{`+       "id": "newsletters",`, "+   \"write_scope\": {", "Risks it adds:", "may now move files into ~/Archive/Newsletters"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("the change printed lacks %q:\n%s", want, out.String())
		}
	}
	if vs, _ := c.ScoutVersions(ctx, sc.ID); len(vs) != 1 {
		t.Fatalf("saved without a yes: %d versions", len(vs))
	}

	out2, errOut2, code := cli(t, dir, "scouts", "edit", sc.ID, "--describe", "also archive the newsletters", "--yes")
	if code != 0 || !strings.Contains(out2, "now version 2") {
		t.Fatalf("--yes: %d %q %q", code, out2, errOut2)
	}
	vs, _ = c.ScoutVersions(ctx, sc.ID)
	if len(vs) != 2 || vs[0].Note != `changed in words: "also archive the newsletters"` || vs[0].Actor != "cli" {
		t.Fatalf("versions: %+v", vs)
	}
}
