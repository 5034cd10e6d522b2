package effects_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/effects"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// agentHome is moveSetup's home with the agent's folders in it, as on a
// desktop (data, configuration, definitions), ~/Sorted for the moves, a
// private ~/.ssh, and the file.move that protects the agent's folders.
func agentHome(t testing.TB) (home string, m effects.FileMove, inv func(to string) engine.Invocation) {
	t.Helper()
	home, inv = moveSetup(t, "ACME invoice 42")
	data := filepath.Join(home, ".local", "share", "scouts")
	config := filepath.Join(home, ".config", "scouts")
	defs := filepath.Join(config, "scouts.d")
	for _, d := range []string{data, defs, filepath.Join(home, ".ssh"), filepath.Join(home, "Sorted", "bills")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return home, effects.FileMove{Home: home, Protected: []string{config, defs, data}}, inv
}

// stillThere fails the test unless the card's file is where it was.
func stillThere(t *testing.T, home string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(home, "Inbox", "bills", "acme.txt")); err != nil {
		t.Fatalf("the file left its place: %v", err)
	}
}

// A rule's template fills the destination from the item's text: a text
// that climbs with ".." is refused when the plan is made and when the move
// runs, and the file stays where it was.
func TestFileMoveRefusesDotDotSegments(t *testing.T) {
	ctx := context.Background()
	home, m, inv := agentHome(t)
	for _, to := range []string{
		"~/Sorted/../.config/scouts/scouts.d",
		"~/Sorted/a/../../.ssh",
		filepath.Join(home, "Sorted") + "/../Sorted/bills",
		"~/Sorted/bills/..",
	} {
		if err := m.Check(ctx, inv(to)); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), `".." segment`) {
			t.Errorf("check %s: %v, want a refusal naming the \"..\" segment", to, err)
		}
		if _, err := m.Execute(ctx, inv(to)); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), `".." segment`) {
			t.Errorf("run %s: %v, want a refusal naming the \"..\" segment", to, err)
		}
		stillThere(t, home)
	}
	// A name with dots that is not ".." is a name.
	os.Mkdir(filepath.Join(home, "Sorted", "..bills"), 0o755)
	if err := m.Check(ctx, inv("~/Sorted/..bills")); err != nil {
		t.Fatalf("a folder named ..bills: %v", err)
	}
}

// The agent's data, configuration and definitions folders, and anything
// in them, are never destinations, however they are spelled.
func TestFileMoveRefusesTheAgentsFolders(t *testing.T) {
	ctx := context.Background()
	home, m, inv := agentHome(t)
	os.Mkdir(filepath.Join(home, ".config", "scouts", "scouts.d", "sub"), 0o700)
	for _, to := range []string{
		"~/.config/scouts/scouts.d",
		filepath.Join(home, ".config", "scouts"),
		"~/.local/share/scouts",
		"~/.config/scouts/scouts.d/sub",
		"~/.config/scouts/scouts.d/",
	} {
		if err := m.Check(ctx, inv(to)); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), "where Scouts keeps its own") {
			t.Errorf("check %s: %v, want a refusal naming the agent's folder", to, err)
		}
		if _, err := m.Execute(ctx, inv(to)); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("run %s: %v, want a refusal", to, err)
		}
		stillThere(t, home)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".config", "scouts", "scouts.d")); len(entries) != 1 {
		t.Fatalf("the definitions folder holds %v", entries)
	}
}

// A link planted inside ~/Sorted that leads into ~/.ssh or the
// definitions folder is refused, at plan time and when one is swapped in
// after the plan was checked; the file stays where it was.
func TestFileMoveRefusesLinksBelowTheHomeFolder(t *testing.T) {
	ctx := context.Background()
	home, m, inv := agentHome(t)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "Sorted", "keys"))
	os.Symlink(filepath.Join(home, ".config", "scouts", "scouts.d"), filepath.Join(home, "Sorted", "defs"))
	for to, says := range map[string]string{"~/Sorted/keys": "symbolic link", "~/Sorted/defs": "where Scouts keeps its own"} {
		if err := m.Check(ctx, inv(to)); scouts.ErrorCode(err) != scouts.EInvalid || !strings.Contains(err.Error(), says) {
			t.Errorf("check %s: %v, want a refusal saying %q", to, err, says)
		}
		if _, err := m.Execute(ctx, inv(to)); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("run %s: %v, want a refusal", to, err)
		}
		stillThere(t, home)
	}
	// Planned into a real folder, which is then replaced by a link into
	// ~/.ssh: the run looks again and refuses.
	if err := m.Check(ctx, inv("~/Sorted/bills")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(home, "Sorted", "bills"))
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "Sorted", "bills"))
	if _, err := m.Execute(ctx, inv("~/Sorted/bills")); scouts.ErrorCode(err) != scouts.EInvalid {
		t.Fatalf("swapped destination: %v", err)
	}
	stillThere(t, home)
	if entries, _ := os.ReadDir(filepath.Join(home, ".ssh")); len(entries) != 0 {
		t.Fatalf("a file reached ~/.ssh: %v", entries)
	}
}
