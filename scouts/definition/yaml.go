package definition

import (
	"bytes"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// YAML writes documents (JSON, as an export gives them) as YAML, one
// document each, separated by "---": what ParseAll reads back. Keys keep
// the order they have in the JSON (the schema's: version, id, kind,
// name…), a rule's in the rule schema's order (its stored document may
// have them in any), and strings that YAML would read as something else ("true",
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
		orderRules(&n)
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

// ruleKeyOrder is the order of the properties of a rule, its then and its
// actions in rules.schema.json (a test holds them to it). A rule stored as
// a map has its keys in alphabetical order: then before when.
var ruleKeyOrder = map[string][]string{
	"rule":   {"id", "name", "enabled", "when", "then"},
	"then":   {"verdict", "kind", "title", "project", "due", "actions", "on_failure"},
	"action": {"action", "params", "output_as"},
}

// orderRules puts the keys of each rule of a document (n, as decoded) in
// the schema's order; the filter under when is the person's, left as is.
func orderRules(n *yaml.Node) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	rules := mappingValue(n, "rules")
	if rules == nil || rules.Kind != yaml.SequenceNode {
		return
	}
	for _, r := range rules.Content {
		orderKeys(r, ruleKeyOrder["rule"])
		then := mappingValue(r, "then")
		orderKeys(then, ruleKeyOrder["then"])
		for _, list := range []string{"actions", "on_failure"} {
			if acts := mappingValue(then, list); acts != nil && acts.Kind == yaml.SequenceNode {
				for _, a := range acts.Content {
					orderKeys(a, ruleKeyOrder["action"])
				}
			}
		}
	}
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// orderKeys sorts a mapping's pairs by order; keys it does not name keep
// their order, after those it does.
func orderKeys(m *yaml.Node, order []string) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	rank := func(k string) int {
		if i := slices.Index(order, k); i >= 0 {
			return i
		}
		return len(order)
	}
	pairs := make([][2]*yaml.Node, 0, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		pairs = append(pairs, [2]*yaml.Node{m.Content[i], m.Content[i+1]})
	}
	slices.SortStableFunc(pairs, func(a, b [2]*yaml.Node) int { return rank(a[0].Value) - rank(b[0].Value) })
	m.Content = m.Content[:0]
	for _, p := range pairs {
		m.Content = append(m.Content, p[0], p[1])
	}
}
