package definition

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/scout.schema.json from the schema embedded in the package")

// TestSchemaInDocs: docs/scout.schema.json, which docs/definitions.md
// links to and the schema's $id names, is the schema the agent serves and
// validates with.
func TestSchemaInDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "scout.schema.json")
	if *update {
		if err := os.WriteFile(path, Schema(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, Schema()) {
		t.Fatal("docs/scout.schema.json differs from scouts/definition/scout.schema.json: run go test ./scouts/definition -run TestSchemaInDocs -update")
	}
}
