package definition

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseYAMLAndJSONAgree(t *testing.T) {
	y := `version: 1
kind: folder
name: Scans
source:
  path: /tmp/scans
  include: ["*.pdf"]
rules:
  - id: invoices
    when: {name: {contains: invoice}}
    then: {lane: show}
schedule: {cron: "@hourly", overlap: skip}
`
	dy, err := Parse("scans.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if !dy.Enabled || !dy.Review {
		t.Fatalf("a definition that does not say otherwise is enabled and in review: %+v", dy)
	}
	out, err := Marshal(dy)
	if err != nil {
		t.Fatal(err)
	}
	dj, err := Parse("scans.json", out)
	if err != nil {
		t.Fatalf("what Marshal writes must parse: %v\n%s", err, out)
	}
	again, _ := Marshal(dj)
	if string(again) != string(out) {
		t.Fatalf("round trip changed the document:\n%s\n%s", out, again)
	}
	if dj.Schedule == nil || dj.Schedule.Overlap != "skip" || len(dj.Rules) != 1 {
		t.Fatalf("lost fields: %+v", dj)
	}
}

func TestErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string
		line             int
		reason           string
	}{
		{"schema error in YAML", "a.yaml", "version: 1\nkind: folder\nname: A\nsource:\n  path: /x\n  exclude: 7\n", 6, "/source/exclude"},
		{"unknown kind", "a.yaml", "version: 1\nname: A\nkind: ftp\n", 3, "/kind"},
		{"unknown field", "a.yaml", "version: 1\nkind: webhook\nname: A\nhook_token: abc\n", 1, "hook_token"},
		{"YAML syntax", "a.yaml", "version: 1\nkind: folder\nname: [A\n", 3, "not valid YAML"},
		{"JSON syntax", "a.json", "{\n \"version\": 1,\n \"kind\": \"folder\",\n \"name\": \"A\"\n \"source\": {}\n}\n", 5, "not valid JSON"},
		{"missing name", "a.json", "{\n \"version\": 1,\n \"kind\": \"webhook\"\n}\n", 1, "name"},
		{"bad threshold", "a.json", "{\"version\": 1, \"kind\": \"webhook\", \"name\": \"A\",\n\"learning\": {\n\"screen_below\": 0.9}}", 3, "/learning/screen_below"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file, []byte(tc.text))
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("want *Error, got %v", err)
			}
			if de.Line != tc.line || !strings.Contains(de.Reason, tc.reason) || de.File != tc.file {
				t.Fatalf("got %s:%d %q; want line %d mentioning %q", de.File, de.Line, de.Reason, tc.line, tc.reason)
			}
		})
	}
}

func TestParseAllReadsExports(t *testing.T) {
	arr := `[{"version":1,"kind":"webhook","name":"A"},{"version":1,"kind":"webhook","name":"B","enabled":false}]`
	docs, err := ParseAll("x.json", []byte(arr))
	if err != nil || len(docs) != 2 || docs[1].Enabled {
		t.Fatalf("got %+v, %v", docs, err)
	}
	multi := "version: 1\nkind: webhook\nname: A\n---\nversion: 1\nkind: webhook\nname: B\n"
	docs, err = ParseAll("x.yaml", []byte(multi))
	if err != nil || len(docs) != 2 || docs[1].Name != "B" {
		t.Fatalf("got %+v, %v", docs, err)
	}
	if _, err := Parse("x.yaml", []byte(multi)); err == nil {
		t.Fatal("a definition file holds one scout")
	}
}

func TestDiff(t *testing.T) {
	a, _ := Marshal(Document{Kind: "folder", Name: "A", Enabled: true, Source: json.RawMessage(`{"path":"/a"}`)})
	b, _ := Marshal(Document{Kind: "folder", Name: "B", Enabled: true, Source: json.RawMessage(`{"path":"/a","include":["*.pdf"]}`)})
	ch, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Path: "/name", From: `"A"`, To: `"B"`}, {Path: "/source/include/0", To: `"*.pdf"`}}
	if len(ch) != len(want) || ch[0] != want[0] || ch[1] != want[1] {
		t.Fatalf("got %+v want %+v", ch, want)
	}
}

func TestSchemaIsValidJSON(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(Schema(), &v); err != nil || v["$id"] != SchemaURL {
		t.Fatalf("schema: %v %v", err, v["$id"])
	}
}

// YAML export reads back as the same documents, keys in the schema's
// order, block style, and strings that look like other types quoted.
func TestYAMLRoundTrip(t *testing.T) {
	a := []byte(`{"version": 1, "id": "sc_1", "kind": "folder", "name": "true", "enabled": true, "review": false,
		"source": {"path": "/home/ann/Scans", "include": ["*.pdf", "0755"]},
		"rules": [{"id": "r1", "when": {"ext": {"equals": "pdf"}}, "then": {"verdict": "show", "title": "Pay: {{.name}}\nsoon"}}],
		"schedule": {"cron": "@hourly", "time_zone": "Europe/Paris"}}`)
	b := []byte(`{"version": 1, "kind": "webhook", "name": "Hooks"}`)
	out, err := YAML(a, b)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	if !strings.HasPrefix(text, "version: 1\nid: sc_1\nkind: folder\nname: \"true\"\n") || !strings.Contains(text, "\n---\n") ||
		strings.Contains(text, "{\"") || !strings.Contains(text, `- "0755"`) {
		t.Fatalf("YAML:\n%s", text)
	}
	docs, err := ParseAll("export.yaml", out)
	if err != nil || len(docs) != 2 {
		t.Fatalf("read back: %d docs, %v\n%s", len(docs), err, text)
	}
	for i, raw := range [][]byte{a, b} {
		want, _ := Parse("json", raw)
		wb, _ := Marshal(want)
		gb, _ := Marshal(docs[i])
		if !bytes.Equal(wb, gb) {
			t.Fatalf("document %d changed:\n%s\n%s", i+1, wb, gb)
		}
	}
}
