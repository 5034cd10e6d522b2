package rules

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite docs/rules.schema.json from the schema embedded in the package")

// TestSchemaInDocs: docs/rules.schema.json is the embedded schema.
func TestSchemaInDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "rules.schema.json")
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
		t.Fatal("docs/rules.schema.json differs from scouts/rules/rule.schema.json: run go test ./scouts/rules -run TestSchemaInDocs -update")
	}
}

// TestSchemaWithValidator: the schema and its per-kind variants compile
// with the validator library (which checks them against the draft
// 2020-12 meta-schema), accept a valid rule and refuse what they should.
func TestSchemaWithValidator(t *testing.T) {
	good := `{"id":"invoices","name":"Invoices","enabled":true,
		"when":{"$and":[{"from":{"ends_with":"@acme.example"}},{"$or":[{"subject":{"contains_word":"invoice"}},{"has_attachment":{"equals":true}}]}]},
		"then":{"verdict":"show","kind":"task","title":"Pay {{.from}}","project":"Finance","due":"+3d","actions":[{"action":"gmail.label","params":{"label":"Bills"}}]}}`
	bad := `{"id":"invoices","when":{"subjet":{"contains":"x"}},"then":{"verdict":"show"}}`
	for _, kind := range append(Kinds(), "") {
		doc := Schema()
		if kind != "" {
			var err error
			if doc, err = SchemaFor(kind); err != nil {
				t.Fatal(err)
			}
		}
		sch, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("rule.json", sch); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("rule.json")
		if err != nil {
			t.Fatalf("schema for %q: %v", kind, err)
		}
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(good))
		if err := s.Validate(inst); (err == nil) != (kind == KindGmail || kind == "") {
			t.Errorf("schema for %q on a Gmail rule: %v", kind, err)
		}
		inst, _ = jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err := s.Validate(inst); (err == nil) != (kind == "") {
			t.Errorf("schema for %q on a misspelt field: %v", kind, err)
		}
	}
}

// TestDocsExamples: every rule in docs/rules.md (a code block marked
// "json rule=KIND") is valid for its kind.
func TestDocsExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json rule=([a-z]+)\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 5 {
		t.Fatalf("only %d rule examples in docs/rules.md", len(blocks))
	}
	for _, b := range blocks {
		if _, err := Compile(b[1], []byte(b[2]), Options{}); err != nil {
			t.Errorf("docs/rules.md example for %s:\n%s\n%v", b[1], b[2], err)
		}
	}
}
