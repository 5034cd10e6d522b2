package actions

import (
	"encoding/json"
	"errors"
	"testing"
)

// Actions that come and go (the tools of MCP servers) are looked up at
// each call, validated against their own schema, and a blocked one
// resolves to deny whatever the policies say.
func TestExtraActionsComeAndGo(t *testing.T) {
	var extra []Def
	c := MustNew().WithExtra(func() []Def { return extra })
	if _, ok := c.Get("mcp.fs.write_file"); ok {
		t.Fatal("found before it was listed")
	}
	extra = []Def{{Name: "mcp.fs.write_file", Risk: RiskWrite, Where: Outbox,
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	d, ok := c.Get("mcp.fs.write_file")
	if !ok {
		t.Fatal("not found once listed")
	}
	if err := c.Validate(d.Name, json.RawMessage(`{"path": 3}`)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("params breaking the tool's schema: %v", err)
	}
	if err := c.Validate(d.Name, json.RawMessage(`{"path": "a.txt"}`)); err != nil {
		t.Fatal(err)
	}
	pol := Policies{Global: map[string]Mode{d.Name: Allow}}
	if r := pol.Resolve(d, "s1"); r.Mode != Allow {
		t.Fatalf("resolved %v", r)
	}
	extra[0].Blocked = "its description changed"
	d, _ = c.Get(d.Name)
	if r := pol.Resolve(d, "s1"); r.Mode != Deny || r.Source != SourceBlocked {
		t.Fatalf("a blocked action resolved %v", r)
	}
	extra = nil
	if _, ok := c.Get(d.Name); ok {
		t.Fatal("still found once no longer listed")
	}
}
