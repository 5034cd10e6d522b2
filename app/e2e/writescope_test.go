package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// TestWriteScopeOverRealProcesses: a folder scout whose rule moves each
// file to "~/{{.text | trim}}", allowed to run without approval. Every
// other check of file.move lets a text of ".ssh" into ~/.ssh (inside the
// home folder, no "..", no link, not the agent's own folders); the scout's
// write scope — the default, ~/Sorted/** — refuses it when the plan is
// made, and the card's trail names the scope, while "Sorted/bills" is
// moved. A narrower scope set on the scout refuses what the default
// allowed, naming the new scope.
func TestWriteScopeOverRealProcesses(t *testing.T) {
	ctx := context.Background()
	home, dataDir := t.TempDir(), t.TempDir()
	for _, d := range []string{"Drop", ".ssh", "Sorted/bills"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	a := startAgent(t, dataDir, home)
	dir := filepath.Join(home, "Drop")
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Name: "Drop", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !sc.WriteScope.Folders.Default || strings.Join(sc.WriteScope.Folders.Globs, ",") != "~/Sorted/**" {
		t.Fatalf("a new folder scout's scope: %+v", sc.WriteScope)
	}
	if _, err := a.client.AddRule(ctx, sc.ID, []byte(`{"id":"sort","when":{"name":{"exists":true}},
		"then":{"verdict":"show","actions":[{"action":"file.move","params":{"to":"~/{{.text | trim}}"}}]}}`), -1); err != nil {
		t.Fatal(err)
	}
	allow := "allow"
	if _, err := a.client.SetPolicies(ctx, apitype.PutPolicies{Global: map[string]*string{"file.move": &allow}}); err != nil {
		t.Fatal(err)
	}
	drop := func(name, text string) {
		t.Helper()
		tmp := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(tmp, []byte(text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// trailOf waits for the card of a file and for its trail to hold an
	// entry saying says.
	trailOf := func(name, says string) []apitype.AuditEvent {
		t.Helper()
		var trail []apitype.AuditEvent
		waitOn(t, on(a.changed()), name+"'s trail saying "+says, func() bool {
			for _, c := range cardsOf(t, a, sc.ID, 1) {
				if filepath.Base(c.Path) == name {
					trail, _ = a.client.Audit(ctx, c.TraceID)
				}
			}
			for _, e := range trail {
				if strings.Contains(e.Summary, says) {
					return true
				}
			}
			return false
		}, func() string { return fmt.Sprintf("trail %+v", trail) })
		return trail
	}

	drop("bills.txt", "Sorted/bills")
	trailOf("bills.txt", "Moving the file to ~/Sorted/bills (file.move) done")
	if _, err := os.Stat(filepath.Join(home, "Sorted", "bills", "bills.txt")); err != nil {
		t.Fatalf("the file inside the scope was not moved: %v", err)
	}

	drop("keys.txt", ".ssh")
	trailOf("keys.txt", "Not run: file.move (proposed by rule:sort): file.move: ~/.ssh is outside the scout's write scope [~/Sorted/**] (the default)")
	if _, err := os.Stat(filepath.Join(dir, "keys.txt")); err != nil {
		t.Fatalf("the refused file left its place: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".ssh")); len(entries) != 0 {
		t.Fatalf("a file reached ~/.ssh: %v", entries)
	}

	// Narrowed to ~/Sorted/bills: ~/Sorted itself, inside the default, is
	// refused now.
	if _, err := a.client.PatchScout(ctx, sc.ID, apitype.PatchScout{WriteScope: &apitype.WriteScope{Folders: &[]string{"~/Sorted/bills"}}}); err != nil {
		t.Fatal(err)
	}
	drop("loose.txt", "Sorted")
	trailOf("loose.txt", "~/Sorted is outside the scout's write scope [~/Sorted/bills]")
	if _, err := os.Stat(filepath.Join(dir, "loose.txt")); err != nil {
		t.Fatalf("the refused file left its place: %v", err)
	}
}
