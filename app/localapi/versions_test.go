package localapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// as calls the API as a client that names itself (X-Scouts-Client).
func as(t *testing.T, srv *httptest.Server, client, method, path, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if client != "" {
		req.Header.Set("X-Scouts-Client", client)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// A scout's history says who made each change (the window, the CLI, a
// script through the API) and what it was, a rule change included.
func TestVersionsNameTheClient(t *testing.T) {
	srv, _ := newServer(t)
	code, body := as(t, srv, "window", "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+t.TempDir()+`"}`)
	var sc struct{ ID string }
	if code != 201 && code != 200 || json.Unmarshal(body, &sc) != nil || sc.ID == "" {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := as(t, srv, "cli", "POST", "/api/v1/scouts/"+sc.ID+"/rules",
		`{"id":"pdf","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"screen"}}`); code >= 300 {
		t.Fatalf("add rule: %d %s", code, body)
	}
	if code, body := as(t, srv, "", "PATCH", "/api/v1/scouts/"+sc.ID, `{"name":"Renamed"}`); code != 200 {
		t.Fatalf("patch: %d %s", code, body)
	}
	if code, body := as(t, srv, "browser", "POST", "/api/v1/scouts/"+sc.ID+"/versions/1/rollback", ""); code != 200 {
		t.Fatalf("rollback: %d %s", code, body)
	}
	code, body = as(t, srv, "", "GET", "/api/v1/scouts/"+sc.ID+"/versions", "")
	var vs []struct {
		Version int    `json:"version"`
		Actor   string `json:"actor"`
		Note    string `json:"note"`
	}
	if code != 200 || json.Unmarshal(body, &vs) != nil {
		t.Fatalf("versions: %d %s", code, body)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Actor+": "+v.Note)
	}
	want := []string{"browser: rollback to version 1", "api: ", `cli: rule "pdf" added`, "window: created"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Fatalf("history:\n got %q\nwant %q", got, want)
	}
}

// Drafting without a model answers 503 saying so, with the templates.
func TestDraftWithoutAModel(t *testing.T) {
	srv, _ := newServer(t)
	code, body := as(t, srv, "window", "POST", "/api/v1/definitions/draft", `{"description":"invoices become tasks"}`)
	var out struct {
		Code      string            `json:"code"`
		NoModel   bool              `json:"no_model"`
		Templates []json.RawMessage `json:"templates"`
	}
	if code != http.StatusServiceUnavailable || json.Unmarshal(body, &out) != nil || !out.NoModel || len(out.Templates) == 0 {
		t.Fatalf("draft without a model: %d %s", code, body)
	}
}

// A definition edited by hand is checked and described again, and the
// status says drafting is off without a model.
func TestCheckDefinition(t *testing.T) {
	srv, _ := newServer(t)
	code, body := as(t, srv, "window", "POST", "/api/v1/definitions/check",
		`{"version": 1, "kind": "folder", "name": "Scans", "review": false, "source": {"path": "`+t.TempDir()+`"}}`)
	if code != 200 || !strings.Contains(string(body), `"valid":true`) || !strings.Contains(string(body), `"auto_create"`) {
		t.Fatalf("check: %d %s", code, body)
	}
	code, body = as(t, srv, "window", "POST", "/api/v1/definitions/check", "version: 1\nkind: ftp\nname: X\n")
	if code != 200 || !strings.Contains(string(body), `"valid":false`) || !strings.Contains(string(body), `"line":2`) {
		t.Fatalf("check of a broken definition: %d %s", code, body)
	}
	if code, body = as(t, srv, "", "GET", "/api/v1/definitions/status", ""); code != 200 || !strings.Contains(string(body), `"drafting":false`) {
		t.Fatalf("status: %d %s", code, body)
	}
}
