package localapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/scouts-hq/scouts/app/apitype"
)

// TestRulesEndpoints: the schema, and a scout's rules through HTTP — every
// verb, the statuses of bad input, and the preview.
func TestRulesEndpoints(t *testing.T) {
	srv, _ := newServer(t)
	status, _, body := call(t, srv, "GET", "/api/v1/schema/rules", "")
	if status != 200 {
		t.Fatalf("schema: %d", status)
	}
	sch, err := jsonschema.UnmarshalJSON(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	comp.AddResource("rules.json", sch)
	if _, err := comp.Compile("rules.json"); err != nil {
		t.Fatalf("the served schema does not compile: %v", err)
	}
	if status, _, body := call(t, srv, "GET", "/api/v1/schema/rules?kind=folder", ""); status != 200 || !strings.Contains(string(body), `"ext"`) {
		t.Fatalf("folder schema: %d %.200s", status, body)
	}
	if status, e, _ := call(t, srv, "GET", "/api/v1/schema/rules?kind=fax", ""); status != 400 || !strings.Contains(e.Error, "fax") {
		t.Fatalf("unknown kind: %d %+v", status, e)
	}

	status, _, body = call(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+t.TempDir()+`"}`)
	if status != 201 {
		t.Fatalf("create scout: %d %s", status, body)
	}
	var sc apitype.Scout
	json.Unmarshal(body, &sc)
	base := "/api/v1/scouts/" + sc.ID + "/rules"

	rule := `{"id":"pdfs","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show","kind":"note"}}`
	if status, _, body := call(t, srv, "POST", base, rule); status != 201 || !strings.Contains(string(body), `"position":0`) {
		t.Fatalf("add: %d %s", status, body)
	}
	cases := []struct {
		name, method, path, body string
		status                   int
		mention                  string
	}{
		{"same id", "POST", base, rule, 409, "already has a rule"},
		{"not JSON", "POST", base, `{`, 400, "not JSON"},
		{"unknown field", "POST", base, `{"id":"x","when":{"subject":{"contains":"a"}},"then":{"verdict":"show"}}`, 400, `rule "x" at /when/subject`},
		{"bad position", "POST", base + "?position=-2", rule, 400, "position"},
		{"huge", "POST", base, `{"id":"` + strings.Repeat("x", 70<<10) + `"}`, 400, "larger than"},
		{"no scout", "POST", "/api/v1/scouts/sc_nope/rules", rule, 404, "not found"},
		{"no rule", "PUT", base + "/nope", rule, 400, "cannot change"},
		{"missing rule", "PUT", base + "/nope", `{"when":{"ext":{"equals":"x"}},"then":{"verdict":"show"}}`, 404, "no rule"},
		{"patch unknown field", "PATCH", base + "/pdfs", `{"on":true}`, 400, "on"},
		{"reorder missing", "POST", base + "/reorder", `{"ids":[]}`, 400, "each of"},
		{"delete missing", "DELETE", base + "/nope", "", 404, "no rule"},
	}
	for _, c := range cases {
		status, e, _ := call(t, srv, c.method, c.path, c.body)
		if status != c.status || !strings.Contains(e.Error, c.mention) {
			t.Errorf("%s: %d %+v, want %d mentioning %q", c.name, status, e, c.status, c.mention)
		}
	}
	if status, _, body := call(t, srv, "PUT", base+"/pdfs", `{"when":{"ext":{"in":["pdf","ps"]}},"then":{"verdict":"show"}}`); status != 200 || !strings.Contains(string(body), `"ps"`) {
		t.Fatalf("put: %d %s", status, body)
	}
	if status, _, body := call(t, srv, "PATCH", base+"/pdfs", `{"enabled":false}`); status != 200 || !strings.Contains(string(body), `"enabled":false`) {
		t.Fatalf("patch: %d %s", status, body)
	}
	call(t, srv, "POST", base+"?position=0", `{"id":"first","when":{"name":{"starts_with":"a"}},"then":{"verdict":"spam"}}`)
	status, _, body = call(t, srv, "POST", base+"/reorder", `{"ids":["pdfs","first"]}`)
	var list apitype.RuleList
	json.Unmarshal(body, &list)
	if status != 200 || len(list.Rules) != 2 || !strings.Contains(string(list.Rules[0].Rule), `"pdfs"`) || len(list.Fields) != 5 || list.Kind != "folder" {
		t.Fatalf("reorder: %d %s", status, body)
	}
	status, _, body = call(t, srv, "POST", base+"/preview", rule)
	var p apitype.RulePreview
	json.Unmarshal(body, &p)
	if status != 200 || p.RuleID != "pdfs" || p.Items == nil {
		t.Fatalf("preview: %d %s", status, body)
	}
	if status, _, _ := call(t, srv, "DELETE", base+"/first", ""); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	status, _, body = call(t, srv, "GET", base+"/pdfs", "")
	if status != 200 || !strings.Contains(string(body), `"position":0`) {
		t.Fatalf("get: %d %s", status, body)
	}
}
