package defsync_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// A definition written by hand says where the folder is as
// docs/definitions.md shows it, "~/Scans": the agent reads it as the
// folder in the home folder (it refused it as not absolute), and reading
// the same file again changes nothing.
func TestDefinitionFolderUnderHome(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "My Scans"), 0o700); err != nil {
		t.Fatal(err)
	}
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), Home: home})
	doc := "version: 1\nkind: folder\nname: Scans\nsource:\n  path: ~/My Scans\n"
	parsed, err := definition.ParseAll("scans.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := c.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: true, Actor: "test"})
	if err != nil {
		t.Fatalf("a folder under ~: %v", err)
	}
	s, err := c.DB.GetScout(ctx, ch[0].ScoutID)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ Path string }
	if err := json.Unmarshal(s.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "My Scans"); cfg.Path != want {
		t.Fatalf("the scout watches %q, want %q", cfg.Path, want)
	}
	again, err := c.Definitions().Import(ctx, parsed, defsync.ImportOptions{Actor: "test"})
	if err != nil || again[0].Action != "unchanged" {
		t.Fatalf("the same file read again: %+v %v", again, err)
	}
}
