package localapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scouts-hq/scouts/app/apitype"
)

// TestRuleTextMustBeValidUTF8: a rule whose text is not valid UTF-8 or
// holds NUL is refused with a 400 naming the field — it was stored as sent
// (201) and served back inside the JSON of every listing — and nothing is
// stored; the scout's listing stays valid JSON.
func TestRuleTextMustBeValidUTF8(t *testing.T) {
	srv, _ := newServer(t)
	status, _, body := call(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+t.TempDir()+`"}`)
	if status != 201 {
		t.Fatalf("create scout: %d %s", status, body)
	}
	var sc apitype.Scout
	json.Unmarshal(body, &sc)
	base := "/api/v1/scouts/" + sc.ID + "/rules"
	for _, c := range []struct{ name, body, mention string }{
		{"raw bytes", `{"id":"bad","when":{"$and":[{"ext":{"equals":"pdf"}},{"name":{"contains":"` + "\xff\xfe" + `"}}]},"then":{"verdict":"show"}}`,
			`rule "bad" at /when/$and/1/name/contains: not valid UTF-8`},
		{"NUL", `{"id":"bad","when":{"name":{"equals":"a\u0000"}},"then":{"verdict":"show"}}`,
			`rule "bad" at /when/name/equals: contains NUL`},
		{"name", `{"id":"bad","name":"` + "\xc3" + `","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show"}}`,
			`rule "bad" at /name: not valid UTF-8`},
	} {
		status, e, _ := call(t, srv, "POST", base, c.body)
		if status != 400 || !strings.Contains(e.Error, c.mention) {
			t.Errorf("%s: %d %q, want 400 saying %q", c.name, status, e.Error, c.mention)
		}
		if !utf8.ValidString(e.Error) {
			t.Errorf("%s: the error is not valid UTF-8: %q", c.name, e.Error)
		}
		// An edit is checked the same way.
		call(t, srv, "POST", base, `{"id":"ok","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show"}}`)
		status, e, _ = call(t, srv, "PUT", base+"/ok", strings.Replace(c.body, `"id":"bad",`, "", 1))
		if status != 400 || !strings.Contains(e.Error, strings.Replace(c.mention, `"bad"`, `"ok"`, 1)) {
			t.Errorf("%s (edit): %d %q", c.name, status, e.Error)
		}
	}
	status, _, body = call(t, srv, "GET", base, "")
	var list apitype.RuleList
	if status != 200 || !utf8.Valid(body) || json.Unmarshal(body, &list) != nil || len(list.Rules) != 1 || strings.Contains(string(body), `"bad"`) {
		t.Fatalf("listing: %d %q", status, body)
	}
}
