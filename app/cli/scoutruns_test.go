package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// scouts runs ID lists the scout's runs with what started each, what it
// found and the definition version it ran; --json gives them as the API
// does; a scout that does not exist is an error.
func TestScoutRunsCommand(t *testing.T) {
	dir, c := startTestAgent(t)
	drop := t.TempDir()
	if err := os.WriteFile(filepath.Join(drop, "a.txt"), []byte("Review the contract"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := c.CreateScout(context.Background(), apitype.CreateScout{Kind: "folder", Path: drop, IncludeExisting: true})
	if err != nil {
		t.Fatal(err)
	}
	pendingCards(t, c, 1)
	// The card exists while the run that found it may still be running
	// (its counts are recorded when it ends): wait for that run's end.
	awaitAgent(t, c, "the run that found a.txt to end", func() bool {
		runs, err := c.ScoutRuns(context.Background(), sc.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Outcome == "ok" && r.ItemsNew == 1 {
				return true
			}
		}
		return false
	})
	out, errOut, code := cli(t, dir, "scouts", "runs", sc.ID)
	if code != 0 {
		t.Fatalf("runs: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// The scout's start and its folder's changes ran it; one run found
	// a.txt; all ran the version its creation recorded, without a model.
	// A run the folder's watch started may still be running as the list
	// is read: it is listed, as running.
	rows := lines[1 : len(lines)-1]
	found := false
	for _, l := range rows {
		f := strings.Fields(l) // date, time, trigger, outcome, seen, new, tokens, version
		if len(f) < 8 || (f[2] != "start" && f[2] != "source") || (f[3] != "ok" && f[3] != "running") || f[6] != "-" || f[7] != "1" {
			t.Fatalf("run %q, want a start or source run, ok or running, at version 1 without tokens:\n%s", l, out)
		}
		found = found || (f[3] == "ok" && f[5] == "1")
	}
	if !strings.HasPrefix(lines[0], "STARTED") || !found {
		t.Fatalf("runs:\n%s", out)
	}
	out, _, code = cli(t, dir, "scouts", "runs", sc.ID, "--json", "--limit", "1")
	var runs []apitype.Run
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].DefinitionVersion != 1 ||
		runs[0].ModelTokens != nil {
		t.Fatalf("runs --json --limit 1: %d %v\n%s", code, err, out)
	}
	if _, errOut, code := cli(t, dir, "scouts", "runs", "sc_missing"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Fatalf("runs of a missing scout: %d %q", code, errOut)
	}
	if _, errOut, code := cli(t, dir, "scouts", "runs", sc.ID, "--limit", "0"); code != 2 || !strings.Contains(errOut, "--limit") {
		t.Fatalf("--limit 0: %d %q", code, errOut)
	}
}
