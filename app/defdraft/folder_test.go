package defdraft_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defdraft"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// Checking a draft whose folder is not there warns that it does not exist
// yet, in the words the draft uses (~/X); the check called it valid with
// nothing risky, and Create then refused it.
func TestCheckDefinitionWarnsOfAMissingFolder(t *testing.T) {
	home := t.TempDir()
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), Home: home})
	draft := func(path string) defdraft.Draft {
		return c.Drafts().Check(context.Background(), []byte("version: 1\nkind: folder\nname: Receipts\nsource:\n  path: "+path+"\n"))
	}
	missing := func(d defdraft.Draft) string {
		for _, r := range d.Risks {
			if r.Code == "missing_folder" {
				return r.Message
			}
		}
		return ""
	}
	d := draft("~/Receipts")
	if msg := missing(d); !d.Valid || !strings.Contains(msg, "folder ~/Receipts does not exist yet") {
		t.Errorf("a missing folder: valid %v, risks %+v", d.Valid, d.Risks)
	}
	// Create refuses it, as the warning says.
	if _, err := c.Definitions().Import(context.Background(), mustParse(t, "version: 1\nkind: folder\nname: Receipts\nsource:\n  path: ~/Receipts\n"),
		defsync.ImportOptions{Apply: true}); err == nil {
		t.Errorf("a scout on a missing folder was created")
	}
	if err := os.Mkdir(filepath.Join(home, "Receipts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d := draft("~/Receipts"); !d.Valid || missing(d) != "" {
		t.Errorf("the folder made: valid %v, risks %+v", d.Valid, d.Risks)
	}
}

func mustParse(t *testing.T, doc string) []definition.Document {
	t.Helper()
	d, err := definition.Parse("test.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return []definition.Document{d}
}
