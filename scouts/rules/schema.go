package rules

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/scouts-hq/scouts/scouts/internal/schemacheck"
)

//go:embed rule.schema.json
var schemaJSON []byte

// schemaURL is the schema's $id.
const schemaURL = "https://github.com/scouts-hq/scouts/raw/main/docs/rules.schema.json"

// Schema returns the rule grammar as a JSON Schema (draft 2020-12): the
// document the API serves and docs/rules.schema.json holds.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// SchemaFor returns the schema with the field names of one scout kind in
// place of the generic field pattern, so an editor can complete and check
// them; the generic schema for an unknown kind.
func SchemaFor(kind string) ([]byte, error) {
	fields, ok := kindFields[kind]
	if !ok {
		return Schema(), nil
	}
	var doc map[string]any
	if err := json.Unmarshal(schemaJSON, &doc); err != nil {
		return nil, fmt.Errorf("rules: schema: %w", err)
	}
	filter := doc["$defs"].(map[string]any)["filter"].(map[string]any)
	props := filter["properties"].(map[string]any)
	pattern := map[string]any{}
	for _, f := range fields {
		cond := map[string]any{"$ref": "#/$defs/condition", "description": f.Doc + " (" + string(f.Type) + ")"}
		if f.Type == TypeJSON {
			pattern[`^body(\.[A-Za-z0-9_-]+){1,8}$`] = cond
			continue
		}
		props[f.Name] = cond
	}
	filter["patternProperties"] = pattern
	doc["$id"] = strings.TrimSuffix(schemaURL, ".json") + "." + kind + ".json"
	doc["title"] = "Scouts rule for a " + kind + " scout"
	return json.MarshalIndent(doc, "", "  ")
}

// compiledSchema is the schema compiled once by the validator library.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	s, err := schemacheck.Compile(schemaURL, schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("rules: schema: %w", err)
	}
	return s, nil
})

// validateSchema checks a decoded document against the schema and says
// where it breaks it: the deepest failures, at most three, each at its
// JSON pointer.
func validateSchema(doc any) error {
	s, err := compiledSchema()
	if err != nil {
		return err
	}
	err = s.Validate(doc)
	if err == nil {
		return nil
	}
	leaves, ok := schemacheck.Leaves(err)
	if !ok {
		return err
	}
	var msgs []string
	for _, l := range leaves {
		at := "/" + strings.Join(escapeAll(l.At), "/")
		if len(l.At) == 0 {
			at = "the document"
		}
		msgs = append(msgs, at+"\x00"+l.Msg)
	}
	slices.Sort(msgs)
	msgs = slices.Compact(msgs)
	out := &schemaError{more: max(0, len(msgs)-3)}
	for _, m := range msgs[:min(3, len(msgs))] {
		at, msg, _ := strings.Cut(m, "\x00")
		out.at, out.msg = append(out.at, at), append(out.msg, msg)
	}
	return out
}

// schemaError lists where a document breaks the schema and how.
type schemaError struct {
	at, msg []string
	more    int
}

func (e *schemaError) Error() string {
	var parts []string
	for i := range e.at {
		parts = append(parts, e.at[i]+": "+e.msg[i])
	}
	if e.more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", e.more))
	}
	return strings.Join(parts, "; ")
}

func escapeAll(parts []string) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return out
}
