package rules

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const planRule = `{"id":"p","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show","actions":[
	{"action":"webhook.post","params":{"url":"https://hooks.example/a","body":"{{.name}}"},"output_as":"post"},
	{"action":"webhook.post","params":{"url":"https://hooks.example/b","body":"{{.name}} was {{.steps.post.status}}"}}],
	"on_failure":[{"action":"webhook.post","params":{"url":"https://hooks.example/alert","body":"{{.name}}: step {{.run.failed_step}} failed: {{.run.error}}"}}]}}`

// TestPlanStepsRenderLate: a step reading an earlier step's output keeps
// that template until it runs, with the item fields it reads copied; the
// on_failure step reads the run; templates over the item alone render on
// arrival as before.
func TestPlanStepsRenderLate(t *testing.T) {
	c, err := Compile(KindFolder, []byte(planRule), Options{})
	if err != nil {
		t.Fatal(err)
	}
	eff := c.Apply(file(), nil)
	if len(eff.Actions) != 3 || len(eff.Notes) != 0 {
		t.Fatalf("actions %+v notes %v", eff.Actions, eff.Notes)
	}
	first, second, onFail := eff.Actions[0], eff.Actions[1], eff.Actions[2]
	if !first.Plan || first.OutputAs != "post" || len(first.Late) != 0 || !strings.Contains(string(first.Params), `"body":"ACME.pdf"`) {
		t.Errorf("first step %+v (%s)", first, first.Params)
	}
	if !strings.Contains(string(second.Params), `{{.name}} was {{.steps.post.status}}`) || len(second.Late) != 1 || second.Late[0] != "/body" ||
		second.Vars["name"] != "ACME.pdf" {
		t.Fatalf("second step %+v (%s)", second, second.Params)
	}
	if !onFail.OnFailure || onFail.Vars["name"] != "ACME.pdf" {
		t.Errorf("on_failure step %+v", onFail)
	}
	data := map[string]any{"steps": map[string]any{"post": map[string]any{"status": 200}}}
	for k, v := range second.Vars {
		data[k] = v
	}
	got, err := RenderLate(second.Params, second.Late, data)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]string
	json.Unmarshal(got, &p)
	if p["body"] != "ACME.pdf was 200" || p["url"] != "https://hooks.example/b" {
		t.Errorf("rendered %s", got)
	}
	// A result without the field: the step fails, saying which template.
	if _, err := RenderLate(second.Params, second.Late, map[string]any{"name": "x", "steps": map[string]any{"post": map[string]any{}}}); err == nil ||
		!strings.Contains(err.Error(), "body") {
		t.Errorf("missing field: %v", err)
	}
	// A rule with neither output_as nor on_failure is no plan.
	old, err := Compile(KindFolder, []byte(`{"id":"o","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show","actions":[{"action":"webhook.post","params":{"url":"https://hooks.example/a"}}]}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := old.Apply(file(), nil).Actions; len(a) != 1 || a[0].Plan {
		t.Errorf("plain rule %+v", a)
	}
}

// TestPlanStepsRefused: what cannot work is refused when the rule is
// saved, at the pointer of the problem.
func TestPlanStepsRefused(t *testing.T) {
	step := func(params, extra string) string {
		return `{"action":"webhook.post","params":{"url":"https://hooks.example/x","body":"` + params + `"}` + extra + `}`
	}
	cases := []struct {
		name, then, path, msg string
	}{
		{"on_failure inside on_failure", `"actions":[` + step("a", "") + `],"on_failure":[` + step("b", `,"on_failure":[`+step("c", "")+`]`) + `]`,
			"/then/on_failure/0/on_failure", "cannot have its own on_failure"},
		{"on_failure inside a step", `"actions":[` + step("a", `,"on_failure":[`+step("c", "")+`]`) + `]`,
			"/then/actions/0/on_failure", "beside actions"},
		{"a later step", `"actions":[` + step("{{.steps.later.id}}", "") + `,` + step("b", `,"output_as":"later"`) + `]`,
			"/then/actions/0/params/body", "a later step"},
		{"no such step", `"actions":[` + step("{{.steps.nope.id}}", "") + `]`, "/then/actions/0/params/body", `no step before this one has "output_as": "nope"`},
		{"run in a main step", `"actions":[` + step("{{.run.error}}", "") + `]`, "/then/actions/0/params/body", "only for on_failure steps"},
		{"a name twice", `"actions":[` + step("a", `,"output_as":"x"`) + `,` + step("b", `,"output_as":"x"`) + `]`, "/then/actions/1/output_as", "already names"},
		{"a bad name", `"actions":[` + step("a", `,"output_as":"Bad Name"`) + `]`, "/then/actions/0/output_as", ""},
	}
	for _, tc := range cases {
		_, err := Compile(KindFolder, []byte(`{"id":"p","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show",`+tc.then+`}}`), Options{})
		var re *Error
		if !errors.As(err, &re) || re.Path != tc.path || !strings.Contains(re.Msg, tc.msg) {
			t.Errorf("%s: got %v (%+v)", tc.name, err, re)
		}
	}
}
