package localapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts/definition"
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
	want := []string{"browser: rollback to version 1", "api: name changed", `cli: rule "pdf" added`, "window: created"}
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

// A scout its definitions file manages: a change to its rules or its
// learning thresholds through the API is refused (409) naming the file,
// as an edit of the scout is; with ?write_file=true the change is made
// and written to the file.
func TestRuleChangesOfAFileManagedScoutAreRefused(t *testing.T) {
	defs := t.TempDir()
	srv, c := newServerWith(t, core.Config{DataDir: t.TempDir(), Version: "test", DefinitionsDir: defs})
	file := filepath.Join(defs, "scans.yaml")
	os.WriteFile(file, []byte(fmt.Sprintf("version: 1\nkind: folder\nname: Scans\nsource:\n  path: %s\n", t.TempDir())), 0o600)
	if err := c.Definitions().Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	by, _ := c.Definitions().ManagedBy(context.Background())
	var id string
	for sid := range by {
		id = sid
	}
	if id == "" {
		t.Fatalf("no scout managed by the file: %+v", c.Definitions().Errors())
	}
	rule := `{"id":"pdf","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"screen"}}`
	for _, req := range []struct{ method, path, body string }{
		{"POST", "/api/v1/scouts/" + id + "/rules", rule},
		{"PUT", "/api/v1/scouts/" + id + "/learning", `{"cold_start":12,"screen_below":0.3,"spam_above":0.9,"min_spam":10}`},
		{"PATCH", "/api/v1/scouts/" + id, `{"name":"Renamed"}`},
	} {
		code, e, _ := call(t, srv, req.method, req.path, req.body)
		if code != http.StatusConflict || !strings.Contains(e.Error, "managed by scans.yaml") {
			t.Fatalf("%s %s: %d %+v, want 409 naming the file", req.method, req.path, code, e)
		}
	}
	if code, body := as(t, srv, "window", "POST", "/api/v1/scouts/"+id+"/rules?write_file=true", rule); code != http.StatusCreated {
		t.Fatalf("add a rule writing the file: %d %s", code, body)
	}
	// The file is YAML, and a change is written in the person's own YAML.
	data, _ := os.ReadFile(file)
	d, err := definition.Parse(file, data)
	if err != nil || len(d.Rules) != 1 || !strings.Contains(string(d.Rules[0]), `"pdf"`) {
		t.Fatalf("the file does not hold the rule (%v):\n%s", err, data)
	}
}
