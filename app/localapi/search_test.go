package localapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// GET /api/v1/search finds what was saved, and a filter it cannot read
// is a 400 that names it.
func TestSearchEndpoint(t *testing.T) {
	srv, _ := newServer(t)
	if st, _, b := call(t, srv, "POST", "/api/v1/notes", `{"title":"Lisbon hotels","body":"Bairro Alto is loud at night"}`); st != http.StatusCreated {
		t.Fatalf("create note: %d %s", st, b)
	}
	st, _, b := call(t, srv, "GET", "/api/v1/search?q="+url.QueryEscape("bairr kind:note"), "")
	if st != http.StatusOK {
		t.Fatalf("search: %d %s", st, b)
	}
	var res apitype.SearchResults
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Type != "note" || res.Results[0].Title != "Lisbon hotels" ||
		!strings.Contains(res.Results[0].Snippet, "Bairro Alto") {
		t.Fatalf("search bairr kind:note: %s", b)
	}
	for q, want := range map[string]string{
		"lane:archive":    "lane:archive is not a lane",
		"lisbon colour:x": "unknown filter colour:",
		"":                "nothing to search for",
	} {
		st, e, _ := call(t, srv, "GET", "/api/v1/search?q="+url.QueryEscape(q), "")
		if st != http.StatusBadRequest || e.Code != "invalid" || !strings.Contains(e.Error, want) {
			t.Errorf("%q: %d %+v, want 400 invalid saying %q", q, st, e, want)
		}
	}
}
