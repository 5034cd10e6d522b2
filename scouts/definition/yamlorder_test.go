package definition_test

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/scouts-hq/scouts/scouts/definition"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// A rule arrives as a stored document spells it (keys in any order, as a
// map gives them: enabled, id, name, then, when); the YAML export writes
// it in the schema's order, as docs/definitions.md promises.
func TestYAMLWritesRuleKeysInTheSchemasOrder(t *testing.T) {
	doc := `{"version":1,"kind":"folder","name":"Scans","enabled":true,"review":true,"rules":[
		{"enabled":true,"id":"bills","name":"Bills","then":{"on_failure":[{"params":{"url":"http://127.0.0.1:9/x"},"action":"webhook.post"}],"actions":[{"output_as":"moved","params":{"to":"~/Bills"},"action":"file.move"}],"title":"Bill","verdict":"inbox","kind":"task"},"when":{"name":{"contains":"bill"}}}]}`
	out, err := definition.YAML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal(out, &n); err != nil {
		t.Fatal(err)
	}
	rule := value(t, n.Content[0], "rules").Content[0]
	then := value(t, rule, "then")
	action := value(t, then, "actions").Content[0]
	onFailure := value(t, then, "on_failure").Content[0]
	for _, c := range []struct {
		what string
		got  *yaml.Node
		want string
	}{
		{"rule", rule, "id name enabled when then"},
		{"then", then, "verdict kind title actions on_failure"},
		{"action", action, "action params output_as"},
		{"on_failure step", onFailure, "action params"},
	} {
		if got := keys(c.got); got != c.want {
			t.Errorf("%s keys: %q, want %q\n%s", c.what, got, c.want, out)
		}
	}
}

// The order the YAML writes is the rule schema's, property by property.
func TestRuleKeyOrderIsTheSchemas(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal(rules.Schema(), &n); err != nil {
		t.Fatal(err)
	}
	root := n.Content[0]
	defs := value(t, root, "$defs")
	for what, props := range map[string]*yaml.Node{
		"rule":   value(t, root, "properties"),
		"then":   value(t, value(t, defs, "then"), "properties"),
		"action": value(t, value(t, defs, "action"), "properties"),
	} {
		if got, want := strings.Join(definition.RuleKeyOrder(what), " "), keys(props); got != want {
			t.Errorf("%s: the YAML writes %q, the schema has %q", what, got, want)
		}
	}
}

func value(t *testing.T, m *yaml.Node, key string) *yaml.Node {
	t.Helper()
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	t.Fatalf("no key %q", key)
	return nil
}

func keys(m *yaml.Node) string {
	var out []string
	for i := 0; i < len(m.Content); i += 2 {
		out = append(out, m.Content[i].Value)
	}
	return strings.Join(out, " ")
}
