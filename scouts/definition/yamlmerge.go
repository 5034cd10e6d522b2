package definition

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MergeYAML writes doc (a definition as JSON, as Marshal gives it) over
// old, the YAML file it replaces, keeping what the person wrote wherever
// it still holds: the comments, the order of the keys, the quotes and the
// flow or block style of each value whose key (or rule, by its id) stays.
// A changed value takes the new one in the old one's place; a key gone
// goes with its comments; a new key comes after the keys kept. Where old
// is not one YAML mapping in block style (a file written as JSON, an
// empty or broken one), or the result would not read back as doc, it
// is plain YAML (YAML), never JSON.
func MergeYAML(old, doc []byte) ([]byte, error) {
	want, err := Parse("the new definition", doc)
	if err != nil {
		return nil, err
	}
	plain := func() ([]byte, error) { return YAML(doc) }
	var root yaml.Node
	if yaml.Unmarshal(old, &root) != nil || root.Kind != yaml.DocumentNode || len(root.Content) != 1 ||
		root.Content[0].Kind != yaml.MappingNode || root.Content[0].Style&yaml.FlowStyle != 0 || oneDocument(old) != nil {
		return plain()
	}
	var next yaml.Node
	if err := yaml.Unmarshal(doc, &next); err != nil {
		return nil, err
	}
	blockStyle(&next)
	orderRules(&next)
	var added []addedKey
	root.Content[0] = mergeNode(root.Content[0], next.Content[0], &added)
	dropDefaults(&root, added, want)
	out, err := encode(&root, indentOf(old))
	if err != nil {
		return plain()
	}
	// The file must say what doc says: a merge the person's YAML turned
	// into something else (an anchor shared by two values that now differ)
	// is written plain instead.
	got, err := Parse("the merged file", out)
	if err != nil || !sameDocument(got, want) {
		return plain()
	}
	return out, nil
}

// oneDocument is nil when data holds a single YAML document.
func oneDocument(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if err := dec.Decode(&first); err != nil {
		return err
	}
	if dec.Decode(&second) == nil {
		return &Error{Reason: "holds more than one document"}
	}
	return nil
}

// sameDocument says whether a and b define the same scout, a rule that
// leaves enabled out being on (the rule schema's default).
func sameDocument(a, b Document) bool {
	ja, errA := Marshal(withRuleDefaults(a))
	jb, errB := Marshal(withRuleDefaults(b))
	return errA == nil && errB == nil && bytes.Equal(compact(ja), compact(jb))
}

func withRuleDefaults(d Document) Document {
	rules := make([]json.RawMessage, len(d.Rules))
	for i, r := range d.Rules {
		rules[i] = r
		var m map[string]any // keys sorted, as they are compared
		if json.Unmarshal(r, &m) == nil {
			if m["enabled"] == nil {
				m["enabled"] = true
			}
			rules[i], _ = json.Marshal(m)
		}
	}
	d.Rules = rules
	return d
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// mergeNode is next in old's place: old itself, changed where next
// differs, when both are the same kind of node; else next, with old's
// comments.
func mergeNode(old, next *yaml.Node, added *[]addedKey) *yaml.Node {
	if old.Kind != next.Kind {
		next.HeadComment, next.LineComment, next.FootComment = old.HeadComment, old.LineComment, old.FootComment
		return next
	}
	switch old.Kind {
	case yaml.ScalarNode:
		if old.Tag == next.Tag && old.Value == next.Value {
			return old
		}
		quoted := old.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
		if next.Tag != "!!str" || !quoted || (old.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && !strings.Contains(next.Value, "\n")) {
			old.Style = next.Style
		}
		old.Value, old.Tag = next.Value, next.Tag
		return old
	case yaml.MappingNode:
		mergeMapping(old, next, added)
		return old
	case yaml.SequenceNode:
		mergeSequence(old, next, added)
		return old
	}
	next.HeadComment, next.LineComment, next.FootComment = old.HeadComment, old.LineComment, old.FootComment
	return next
}

// mergeMapping keeps old's keys that next has, in old's order, each
// value merged; a key new in next goes after the key before it in next
// (the schema's order), first if none is kept.
func mergeMapping(old, next *yaml.Node, added *[]addedKey) {
	had := map[string]bool{}
	content := make([]*yaml.Node, 0, len(next.Content))
	for i := 0; i+1 < len(old.Content); i += 2 {
		k := old.Content[i]
		v := mappingValue(next, k.Value)
		if v == nil || had[k.Value] {
			continue
		}
		had[k.Value] = true
		content = append(content, k, mergeNode(old.Content[i+1], v, added))
	}
	after := -1 // where the previous key of next is in content
	for i := 0; i+1 < len(next.Content); i += 2 {
		k := next.Content[i]
		if had[k.Value] {
			after = keyIndex(content, k.Value)
			continue
		}
		at := after + 2
		if after < 0 {
			at = 0
		}
		content = slices.Insert(content, at, k, next.Content[i+1])
		after = at
		*added = append(*added, addedKey{m: old, key: k.Value})
	}
	old.Content = content
}

func keyIndex(content []*yaml.Node, key string) int {
	for i := 0; i+1 < len(content); i += 2 {
		if content[i].Value == key {
			return i
		}
	}
	return -1
}

// addedKey is a key the merge added to a mapping of the person's.
type addedKey struct {
	m   *yaml.Node
	key string
}

// dropDefaults takes out of root each key the merge added whose absence
// reads the same (a default Marshal spells out, such as enabled: true),
// so that a change adds to the person's file only what it changed.
func dropDefaults(root *yaml.Node, added []addedKey, want Document) {
	for _, a := range added {
		i := keyIndex(a.m.Content, a.key)
		if i < 0 {
			continue
		}
		pair := slices.Clone(a.m.Content[i : i+2])
		a.m.Content = slices.Delete(a.m.Content, i, i+2)
		if got, err := encodeParse(root, 2); err != nil || !sameDocument(got, want) {
			a.m.Content = slices.Insert(a.m.Content, i, pair...)
		}
	}
}

func encodeParse(root *yaml.Node, indent int) (Document, error) {
	b, err := encode(root, indent)
	if err != nil {
		return Document{}, err
	}
	return Parse("the merged file", b)
}

func encode(root *yaml.Node, indent int) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(indent)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// mergeSequence merges items by their id where they have one (rules,
// which the person may have reordered or removed); by position else.
func mergeSequence(old, next *yaml.Node, added *[]addedKey) {
	byID := map[string]*yaml.Node{}
	for _, item := range old.Content {
		if id := idOf(item); id != "" {
			byID[id] = item
		}
	}
	content := make([]*yaml.Node, 0, len(next.Content))
	for i, item := range next.Content {
		switch prev, ok := byID[idOf(item)]; {
		case idOf(item) != "" && ok:
			delete(byID, idOf(item))
			content = append(content, mergeNode(prev, item, added))
		case idOf(item) == "" && i < len(old.Content) && idOf(old.Content[i]) == "":
			content = append(content, mergeNode(old.Content[i], item, added))
		default:
			content = append(content, item)
		}
	}
	old.Content = content
}

func idOf(n *yaml.Node) string {
	if v := mappingValue(n, "id"); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// indentOf guesses the file's indentation: the first indented line's.
func indentOf(data []byte) int {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if n := len(line) - len(trimmed); n > 0 && trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			if n >= 2 && n <= 8 {
				return n
			}
			break
		}
	}
	return 2
}
