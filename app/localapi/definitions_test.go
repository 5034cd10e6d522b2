package localapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestDefinitionsAPI(t *testing.T) {
	srv, _ := newServer(t)
	if code, _, body := call(t, srv, "GET", "/api/v1/schema/scout", ""); code != 200 || !strings.Contains(string(body), "scout.schema.json") {
		t.Fatalf("schema: %d %s", code, body)
	}
	doc := fmt.Sprintf("version: 1\nkind: folder\nname: Scans\nsource:\n  path: %s\n", t.TempDir())
	code, _, body := call(t, srv, "POST", "/api/v1/definitions/import", doc)
	if code != 200 || !strings.Contains(string(body), `"action":"create"`) || !strings.Contains(string(body), `"applied":false`) {
		t.Fatalf("dry run: %d %s", code, body)
	}
	code, _, body = call(t, srv, "POST", "/api/v1/definitions/import?apply=true", doc)
	var out struct {
		Changes []struct {
			ScoutID string `json:"scout_id"`
			Version int    `json:"version"`
		} `json:"changes"`
	}
	if code != 200 || json.Unmarshal(body, &out) != nil || len(out.Changes) != 1 || out.Changes[0].Version != 1 {
		t.Fatalf("apply: %d %s", code, body)
	}
	id := out.Changes[0].ScoutID
	if code, _, body := call(t, srv, "PATCH", "/api/v1/scouts/"+id, `{"name":"Renamed"}`); code != 200 {
		t.Fatalf("patch: %d %s", code, body)
	}
	code, _, body = call(t, srv, "GET", "/api/v1/scouts/"+id+"/versions/diff?from=1&to=2", "")
	if code != 200 || !strings.Contains(string(body), `"path":"/name"`) {
		t.Fatalf("diff: %d %s", code, body)
	}
	if code, _, body := call(t, srv, "POST", "/api/v1/scouts/"+id+"/versions/1/rollback", ""); code != 200 || !strings.Contains(string(body), `"version":3`) {
		t.Fatalf("rollback: %d %s", code, body)
	}
	code, _, body = call(t, srv, "GET", "/api/v1/definitions", "")
	if code != 200 || !strings.Contains(string(body), `"name": "Scans"`) && !strings.Contains(string(body), `"name":"Scans"`) {
		t.Fatalf("export: %d %s", code, body)
	}
	// With its history: the three versions, oldest first; no history
	// without asking.
	code, _, body = call(t, srv, "GET", "/api/v1/definitions?id="+id+"&history=true", "")
	var exported []struct {
		History []struct {
			Version int    `json:"version"`
			Actor   string `json:"actor"`
			Note    string `json:"note"`
		} `json:"history"`
	}
	if code != 200 || json.Unmarshal(body, &exported) != nil || len(exported) != 1 || len(exported[0].History) != 3 ||
		exported[0].History[0].Version != 1 || exported[0].History[2].Note != "rollback to version 1" {
		t.Fatalf("export with history: %d %s", code, body)
	}
	if _, _, body := call(t, srv, "GET", "/api/v1/definitions", ""); strings.Contains(string(body), `"history"`) {
		t.Fatalf("history without asking: %s", body)
	}
	if code, e, _ := call(t, srv, "GET", "/api/v1/definitions?history=yes", ""); code != http.StatusBadRequest || !strings.Contains(e.Error, "history must be true or false") {
		t.Fatalf("history=yes: %d %+v", code, e)
	}
	// The same history back: nothing to do.
	if code, _, b := call(t, srv, "POST", "/api/v1/definitions/import?apply=true", string(body)); code != 200 || !strings.Contains(string(b), `"action":"unchanged"`) {
		t.Fatalf("re-import with history: %d %s", code, b)
	}
	code, e, _ := call(t, srv, "POST", "/api/v1/definitions/import", "version: 1\nkind: folder\nname: X\nsource:\n  path: 7\n")
	if code != http.StatusBadRequest || !strings.Contains(e.Error, "request:5: /source/path") {
		t.Fatalf("a broken definition: %d %+v", code, e)
	}
}
