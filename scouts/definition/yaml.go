package definition

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// YAML writes documents (JSON, as an export gives them) as YAML, one
// document each, separated by "---": what ParseAll reads back. Keys keep
// the order they have in the JSON (the schema's: version, id, kind,
// name…), and strings that YAML would read as something else ("true",
// "0755", "null") stay quoted.
func YAML(docs ...[]byte) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for i, doc := range docs {
		// JSON is YAML: decoded as a node, the document keeps its key
		// order, which decoding into a map would lose.
		var n yaml.Node
		if err := yaml.Unmarshal(doc, &n); err != nil {
			return nil, fmt.Errorf("definition %d to YAML: %w", i+1, err)
		}
		blockStyle(&n)
		if err := enc.Encode(&n); err != nil {
			return nil, fmt.Errorf("definition %d to YAML: %w", i+1, err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("definitions to YAML: %w", err)
	}
	return buf.Bytes(), nil
}

// blockStyle drops the flow style and the quotes JSON's syntax gave the
// nodes: the encoder then writes block YAML and quotes only what needs it
// (it still quotes a string that would read as another type, its tag
// being !!str).
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
