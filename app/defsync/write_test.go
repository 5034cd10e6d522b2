package defsync_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// A change written to a YAML definitions file (write_file) keeps the
// person's comments and their spelling of the folder (~/Scans), and is
// still YAML: it was rewritten as JSON, every comment lost. The file read
// again is the scout's new definition, and reading it changes nothing.
func TestWriteFileKeepsYAMLComments(t *testing.T) {
	ctx := context.Background()
	home, defs := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "Scans"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(defs, "scans.yaml")
	text := `# Scans from the office printer.
version: 1
kind: folder
name: Scans  # shown on the card
review: true
source:
  # the printer's share
  path: ~/Scans
  include: ["*.pdf"]  # only PDFs
rules:
  # Invoices become tasks.
  - id: invoices
    when: {name: {contains: invoice}}
    then: {verdict: show, kind: task}
`
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs, Home: home})
	by, err := c.Definitions().ManagedBy(ctx)
	if err != nil || len(by) != 1 {
		t.Fatalf("managed scouts: %v %v", by, err)
	}
	var id string
	for id = range by {
	}
	off := false
	if _, err := c.UpdateScout(ctx, id, core.ScoutPatch{Review: &off, WriteFile: true}); err != nil {
		t.Fatal(err)
	}
	wctx := defsync.WithWriteFile(defsync.WithActor(ctx, "window"))
	if _, err := c.Rules().Add(wctx, id, []byte(`{"id":"drafts","when":{"name":{"contains":"draft"}},"then":{"verdict":"skip"}}`), -1); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	written := string(data)
	for _, keep := range []string{"# Scans from the office printer.", "# shown on the card", "# the printer's share",
		"# only PDFs", "# Invoices become tasks.", "path: ~/Scans"} {
		if !strings.Contains(written, keep) {
			t.Errorf("%q lost from the file:\n%s", keep, written)
		}
	}
	// Only what changed: the invoices rule is as the person wrote it.
	if i, j := strings.Index(written, "id: invoices"), strings.Index(written, "id: drafts"); i < 0 || j < i ||
		strings.Contains(written[i:j], "enabled") {
		t.Errorf("the invoices rule changed:\n%s", written)
	}
	if strings.HasPrefix(strings.TrimSpace(written), "{") {
		t.Fatalf("the YAML file was written as JSON:\n%s", written)
	}
	d, err := definition.Parse("scans.yaml", data)
	if err != nil {
		t.Fatalf("the written file does not read: %v\n%s", err, written)
	}
	if d.Review || ruleState(d) != "invoices:show,drafts:skip" {
		t.Fatalf("the file says review %v, rules %s; want the changes:\n%s", d.Review, ruleState(d), written)
	}
	before, err := c.DB.ListScoutVersions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Definitions().Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := c.DB.ListScoutVersions(ctx, id)
	if len(after) != len(before) || len(c.Definitions().Errors()) != 0 {
		t.Fatalf("reading the written file again: %d versions, then %d (errors %+v)", len(before), len(after), c.Definitions().Errors())
	}
	s, err := c.DB.GetScout(ctx, id)
	if err != nil || s.Review || s.Kind != scouts.KindFolder {
		t.Fatalf("the scout after reading its file again: %+v %v", s, err)
	}
}
