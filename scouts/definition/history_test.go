package definition

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// An export with history, as JSON: past documents come back in the
// canonical form versions are stored in, whatever their key order, and
// through YAML (as scouts export --history --yaml writes it) the same.
func TestHistoryParsesAndSurvivesYAML(t *testing.T) {
	at := time.Date(2025, 3, 1, 9, 30, 0, 123e6, time.UTC)
	v1, _ := Marshal(Document{ID: "sc_1", Kind: "folder", Name: "One", Enabled: true, Review: true, Source: json.RawMessage(`{"path":"/a"}`)})
	d := Document{Version: FormatVersion, ID: "sc_1", Kind: "folder", Name: "Two", Enabled: true, Review: true, Source: json.RawMessage(`{"path":"/a"}`),
		History: []PastVersion{
			{Version: 1, CreatedAt: at, Actor: "window", Note: "created", Document: v1},
			// Keys in another order, as a hand or another tool may write them.
			{Version: 2, CreatedAt: at.Add(time.Hour), Actor: "cli", Document: json.RawMessage(
				`{"source":{"path":"/a"},"name":"Two","kind":"folder","id":"sc_1","version":1,"review":true,"enabled":true}`)},
		}}
	raw, err := json.Marshal([]Document{d})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Marshal(d); bytes.Contains(got, []byte("history")) {
		t.Fatalf("a version's document holds its history:\n%s", got)
	}
	y, err := YAML(raw[1 : len(raw)-1])
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"export.json": raw, "export.yaml": y} {
		docs, err := ParseAll(name, data)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: %v\n%s", name, err, data)
		}
		h := docs[0].History
		if len(h) != 2 || h[0].Version != 1 || !h[0].CreatedAt.Equal(at) || h[0].Actor != "window" || h[0].Note != "created" {
			t.Fatalf("%s: history %+v", name, h)
		}
		if !bytes.Equal(h[0].Document, v1) {
			t.Fatalf("%s: version 1 is not canonical:\n%s\n%s", name, h[0].Document, v1)
		}
		want, _ := Marshal(Document{ID: "sc_1", Kind: "folder", Name: "Two", Enabled: true, Review: true, Source: json.RawMessage(`{"path":"/a"}`)})
		if !bytes.Equal(h[1].Document, want) {
			t.Fatalf("%s: version 2 is not canonical:\n%s", name, h[1].Document)
		}
	}
}

// A history the agent cannot take is refused with its line, before
// anything is imported.
func TestHistoryErrorsNameTheLine(t *testing.T) {
	head := "version: 1\nkind: webhook\nname: A\nhistory:\n"
	past := "    document: {version: 1, kind: webhook, name: A}\n"
	for _, tc := range []struct {
		name, text string
		line       int
		reason     string
	}{
		{"a number twice", head + "  - version: 1\n    created_at: 2025-01-01T00:00:00Z\n" + past +
			"  - version: 1\n    created_at: 2025-01-02T00:00:00Z\n" + past, 8, "version 1 is in the history twice"},
		{"no date", head + "  - version: 1\n" + past, 5, "created_at"},
		{"a date that is not one", head + "  - version: 1\n    created_at: yesterday\n" + past, 6, "/history/0/created_at"},
		{"version 0", head + "  - version: 0\n    created_at: 2025-01-01T00:00:00Z\n" + past, 5, "/history/0/version"},
		{"a past document breaking the schema", head + "  - version: 1\n    created_at: 2025-01-01T00:00:00Z\n" +
			"    document:\n      version: 1\n      kind: ftp\n      name: A\n", 9, "/history/0/document/kind"},
		{"a history inside a history", head + "  - version: 1\n    created_at: 2025-01-01T00:00:00Z\n" +
			"    document:\n      version: 1\n      kind: webhook\n      name: A\n      history:\n" +
			"        - {version: 1, created_at: 2025-01-01T00:00:00Z, document: {version: 1, kind: webhook, name: A}}\n", 11, "/history/0/document/history"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseAll("a.yaml", []byte(tc.text))
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("want *Error, got %v", err)
			}
			if de.Line != tc.line || !strings.Contains(de.Reason, tc.reason) {
				t.Fatalf("got line %d %q; want line %d mentioning %q", de.Line, de.Reason, tc.line, tc.reason)
			}
		})
	}
}

// A model drafts against the schema without history: it has none to
// carry and must not invent one.
func TestDraftSchemaHasNoHistory(t *testing.T) {
	var m struct {
		Properties map[string]any `json:"properties"`
		Defs       map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(DraftSchema(), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Properties["history"]; ok || m.Defs["version"] != nil || m.Properties["rules"] == nil || m.Defs["secret"] == nil {
		t.Fatalf("draft schema: %v %v", m.Properties, m.Defs)
	}
	if !bytes.Contains(Schema(), []byte(`"history"`)) {
		t.Fatal("the published schema describes the history")
	}
}
