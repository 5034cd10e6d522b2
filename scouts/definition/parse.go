package definition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxSize bounds a definition file.
const MaxSize = 1 << 20

// MaxExportSize bounds what an import reads: every scout of an agent,
// with their histories.
const MaxExportSize = 32 << 20

// Parse reads one definition, JSON or YAML, and checks it against the
// schema. file names it in errors. Errors are *Error with the line of the
// file they concern.
func Parse(file string, data []byte) (Document, error) {
	if len(data) > MaxSize {
		return Document{}, &Error{File: file, Reason: fmt.Sprintf("larger than %d bytes", MaxSize)}
	}
	docs, err := ParseAll(file, data)
	if err != nil {
		return Document{}, err
	}
	if len(docs) != 1 {
		return Document{}, &Error{File: file, Reason: fmt.Sprintf("holds %d scouts; a definition file holds one", len(docs))}
	}
	return docs[0], nil
}

// ParseAll reads what an export writes: one document, a JSON array of
// documents, or several YAML documents separated by "---".
func ParseAll(file string, data []byte) ([]Document, error) {
	if len(data) > MaxExportSize {
		return nil, &Error{File: file, Reason: fmt.Sprintf("larger than %d bytes", MaxExportSize)}
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		// JSON's own decoder says where JSON breaks, in its terms.
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, jsonSyntax(file, data, err)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []Document
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, yamlSyntax(file, err)
		}
		root := &n
		if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
			root = root.Content[0]
		}
		if root.Kind == yaml.SequenceNode {
			for i, el := range root.Content {
				if el.Kind != yaml.MappingNode {
					return nil, &Error{File: file, Line: el.Line,
						Reason: fmt.Sprintf("item %d of the list is not a definition object (YAML or JSON mapping)", i+1)}
				}
				d, err := fromNode(file, el)
				if err != nil {
					return nil, err
				}
				out = append(out, d)
			}
			continue
		}
		// Words, a number: the schema would say "got string, want object".
		if root.Kind != yaml.MappingNode {
			return nil, &Error{File: file, Line: max(root.Line, 1), Reason: "the file does not hold a definition object (YAML or JSON mapping)"}
		}
		d, err := fromNode(file, root)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, &Error{File: file, Line: 1, Reason: "holds no scout definition"}
	}
	return out, nil
}

// fromNode converts one document's node to JSON, validates it and decodes
// it; n keeps the lines that errors name.
func fromNode(file string, n *yaml.Node) (Document, error) {
	if bad := nonFinite(n); bad != nil {
		return Document{}, &Error{File: file, Line: bad.Line,
			Reason: fmt.Sprintf("%s is not a finite number (a definition is JSON, which has no NaN or infinity)", bad.Value)}
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return Document{}, yamlSyntax(file, err)
	}
	v, err := jsonable(v)
	if err != nil {
		return Document{}, &Error{File: file, Line: n.Line, Reason: err.Error()}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Document{}, &Error{File: file, Line: n.Line, Reason: err.Error()}
	}
	if p := validate(raw); p != nil {
		return Document{}, &Error{File: file, Line: lineOf(n, p.at), Reason: p.String()}
	}
	d, err := decode(raw)
	if err != nil {
		return Document{}, &Error{File: file, Line: n.Line, Reason: err.Error()}
	}
	if err := canonicalHistory(&d); err != nil {
		return Document{}, &Error{File: file, Line: lineOf(n, err.at), Reason: err.msg}
	}
	return d, nil
}

// decode reads a document the schema has accepted.
func decode(raw []byte) (Document, error) {
	var aux struct {
		Document
		Enabled *bool `json:"enabled"`
		Review  *bool `json:"review"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return Document{}, err
	}
	d := aux.Document
	// A hand-written definition means a working scout unless it says
	// otherwise: enabled and in review.
	d.Enabled = aux.Enabled == nil || *aux.Enabled
	d.Review = aux.Review == nil || *aux.Review
	return d, nil
}

// canonicalHistory checks what the schema cannot say of a history (each
// version number once) and rewrites each past document as Marshal writes
// it: the form versions are stored and compared in, whatever the file's
// key order or syntax.
func canonicalHistory(d *Document) *problem {
	seen := map[int]bool{}
	for i := range d.History {
		h := &d.History[i]
		at := []string{"history", strconv.Itoa(i)}
		if seen[h.Version] {
			return &problem{at: append(at, "version"), msg: fmt.Sprintf("version %d is in the history twice", h.Version)}
		}
		seen[h.Version] = true
		past, err := decode(h.Document)
		if err != nil {
			return &problem{at: append(at, "document"), msg: err.Error()}
		}
		if h.Document, err = Marshal(past); err != nil {
			return &problem{at: append(at, "document"), msg: err.Error()}
		}
	}
	return nil
}

// nonFinite finds a number YAML reads as NaN or an infinity (.nan, .inf,
// or one too large, 1e999): JSON cannot hold it, and it is no threshold.
func nonFinite(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
		var f float64
		if n.Decode(&f) == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return n
		}
		return nil
	}
	for _, c := range n.Content {
		if bad := nonFinite(c); bad != nil {
			return bad
		}
	}
	return nil
}

// jsonable turns YAML's decoded maps into JSON objects: keys must be
// strings (YAML allows others).
func jsonable(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("key %v is not a string", k)
			}
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			m[ks] = c
		}
		return m, nil
	case []any:
		for i, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	}
	return v, nil
}

func jsonSyntax(file string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	line := 0
	if off >= 0 {
		line = 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
	}
	return &Error{File: file, Line: line, Reason: "not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

func yamlSyntax(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.Replace(msg, m[0], "", 1)
		// The YAML module counts lines from 0 in its parser's errors and
		// from 1 in its scanner's; the parser's all say this.
		if strings.HasPrefix(msg, "did not find expected") {
			line++
		}
	}
	return &Error{File: file, Line: line, Reason: "not valid YAML: " + msg}
}

// lineOf is the line of the value at the JSON pointer path inside n (its
// key's line for an object member), or of the deepest part of it that
// exists.
func lineOf(n *yaml.Node, path []string) int {
	line := n.Line
	for _, p := range path {
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == p {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		default:
			return line
		}
	}
	return line
}
