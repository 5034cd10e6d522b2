package definition

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

//go:embed scout.schema.json
var schemaJSON []byte

// SchemaURL is the schema's $id.
const SchemaURL = "https://github.com/scouts-hq/scouts/raw/main/docs/scout.schema.json"

// Schema returns the definition format as a JSON Schema (draft 2020-12):
// what GET /api/v1/schema/scout serves and docs/scout.schema.json holds.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// DraftSchema is the schema a model drafts a definition against: the
// definition without its history, which only an export carries and a
// draft must not invent.
func DraftSchema() []byte {
	var m map[string]any
	if err := json.Unmarshal(schemaJSON, &m); err != nil {
		return Schema() // the embedded schema is checked by the tests
	}
	if props, ok := m["properties"].(map[string]any); ok {
		delete(props, "history")
	}
	if defs, ok := m["$defs"].(map[string]any); ok {
		delete(defs, "version")
	}
	out, err := json.Marshal(m)
	if err != nil {
		return Schema()
	}
	return out
}

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	s, err := schemacheck.Compile(SchemaURL, schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("definition: schema: %w", err)
	}
	return s, nil
})

// problem is the first place a document breaks the schema.
type problem struct {
	at   []string
	msg  string
	more int
}

func (p *problem) String() string {
	where := "the document"
	if len(p.at) > 0 {
		where = "/" + strings.Join(p.at, "/")
	}
	s := where + ": " + p.msg
	if p.more > 0 {
		s += fmt.Sprintf(" (and %d more)", p.more)
	}
	return s
}

// validate checks raw JSON against the schema; nil when it holds. The
// deepest failures say what is wrong; the first of them (in document
// order of their location) is reported.
func validate(raw []byte) *problem {
	s, err := compiled()
	if err != nil {
		return &problem{msg: err.Error()}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &problem{msg: err.Error()}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	leaves, ok := schemacheck.Leaves(err)
	if !ok {
		return &problem{msg: err.Error()}
	}
	all := make([]problem, len(leaves))
	for i, l := range leaves {
		all[i] = problem{at: l.At, msg: l.Msg}
	}
	// The deepest location is the most precise.
	slices.SortStableFunc(all, func(a, b problem) int { return len(b.at) - len(a.at) })
	p := all[0]
	p.more = len(all) - 1
	return &p
}
