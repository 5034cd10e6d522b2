package localapi_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/scouts/triage/llm"
	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

// editServer is an API whose agent has the fake model, and a folder scout
// "Docs" on it.
func editServer(t *testing.T) (api func(method, path, body string) (int, []byte), model *triagetest.Server, id string) {
	t.Helper()
	model = triagetest.New("key", "drafter")
	t.Cleanup(model.Close)
	m, err := llm.New(llm.Config{BaseURL: model.BaseURL(), Model: "drafter", APIKey: "key"})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServerWith(t, core.Config{DataDir: t.TempDir(), Version: "test", Model: m, ModelDailyTokens: 100_000})
	dir := filepath.Join(t.TempDir(), "Docs")
	os.MkdirAll(dir, 0o755)
	body, _ := json.Marshal(map[string]any{"kind": "folder", "path": dir, "name": "Docs"})
	code, _, out := call(t, s, "POST", "/api/v1/scouts", string(body))
	var sc struct{ ID string }
	if code != 201 && code != 200 || json.Unmarshal(out, &sc) != nil {
		t.Fatalf("create: %d %s", code, out)
	}
	return func(method, path, body string) (int, []byte) {
		code, _, out := call(t, s, method, path, body)
		return code, out
	}, model, sc.ID
}

// currentDoc is the scout's newest version's definition.
func currentDoc(t *testing.T, api func(string, string, string) (int, []byte), id string) map[string]any {
	t.Helper()
	code, out := api("GET", "/api/v1/scouts/"+id+"/versions", "")
	var list []struct {
		Version  int            `json:"version"`
		Note     string         `json:"note"`
		Document map[string]any `json:"document"`
	}
	if code != 200 || json.Unmarshal(out, &list) != nil || len(list) == 0 {
		t.Fatalf("versions: %d %s", code, out)
	}
	return list[0].Document
}

func versionsOf(t *testing.T, api func(string, string, string) (int, []byte), id string) []apitype.ScoutVersion {
	t.Helper()
	code, out := api("GET", "/api/v1/scouts/"+id+"/versions", "")
	var list []apitype.ScoutVersion
	if code != 200 || json.Unmarshal(out, &list) != nil {
		t.Fatalf("versions: %d %s", code, out)
	}
	return list
}

// withNewsletters is doc as a model answers "also archive the
// newsletters": a rule more, moving them to ~/Archive/Newsletters, and
// the write scope widened to let it.
func withNewsletters(doc map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range doc {
		out[k] = v
	}
	out["rules"] = []any{map[string]any{"id": "newsletters", "name": "Archive the newsletters",
		"when": map[string]any{"name": map[string]any{"contains": "newsletter"}},
		"then": map[string]any{"verdict": "screen", "actions": []any{map[string]any{"action": "file.move", "params": map[string]any{"to": "~/Archive/Newsletters"}}}}}}
	out["write_scope"] = map[string]any{"folders": []any{"~/Sorted/**", "~/Archive/Newsletters"}}
	return out
}

func script(model *triagetest.Server, doc any) {
	b, _ := json.Marshal(doc)
	model.Script(triagetest.Turn{Content: string(b)})
}

// "also archive the newsletters" on an existing scout: the model gets
// the current definition and the words; the answer is checked like a new
// draft and shown as a diff with the risks it adds; nothing is saved
// until the person saves it, as a new version noted with the words.
func TestChangeAScoutInWords(t *testing.T) {
	api, model, id := editServer(t)
	cur := currentDoc(t, api, id)
	script(model, withNewsletters(cur))

	code, out := api("POST", "/api/v1/scouts/"+id+"/edit-draft", `{"describe": "also archive the newsletters"}`)
	var d apitype.EditDraft
	if code != 200 || json.Unmarshal(out, &d) != nil {
		t.Fatalf("edit-draft: %d %s", code, out)
	}
	if !d.Valid || d.BaseVersion != 1 || d.ScoutID != id {
		t.Fatalf("draft: %s", out)
	}
	var added, removed []string
	for _, l := range d.Diff {
		switch l.Op {
		case "add":
			added = append(added, l.Text)
		case "remove":
			removed = append(removed, l.Text)
		}
	}
	if !strings.Contains(strings.Join(added, "\n"), `"id": "newsletters"`) || !strings.Contains(strings.Join(added, "\n"), "~/Archive/Newsletters") {
		t.Fatalf("the diff does not add the rule: %q", added)
	}
	if strings.Contains(strings.Join(removed, "\n"), `"name": "Docs"`) {
		t.Fatalf("the diff removes what did not change: %q", removed)
	}
	if len(d.RisksAdded) != 1 || d.RisksAdded[0].Code != "wider_write_scope" || !strings.Contains(d.RisksAdded[0].Message, "~/Archive/Newsletters") {
		t.Fatalf("risks added: %+v", d.RisksAdded)
	}
	// The model was given the current definition and the words.
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	msgs, _ := json.Marshal(reqs[0].Messages)
	if !strings.Contains(string(msgs), "also archive the newsletters") || !strings.Contains(string(msgs), id) {
		t.Fatalf("the model was not given the definition and the words: %s", msgs)
	}
	if n := len(versionsOf(t, api, id)); n != 1 {
		t.Fatalf("a draft saved a version: %d versions", n)
	}

	save, _ := json.Marshal(apitype.SaveEditDraft{BaseVersion: d.BaseVersion, Definition: d.Proposed, Describe: d.Describe})
	code, out = api("POST", "/api/v1/scouts/"+id+"/edit-draft/save", string(save))
	var ch apitype.DefinitionChange
	if code != 200 || json.Unmarshal(out, &ch) != nil || ch.Version != 2 {
		t.Fatalf("save: %d %s", code, out)
	}
	vs := versionsOf(t, api, id)
	if len(vs) != 2 || vs[0].Note != `changed in words: "also archive the newsletters"` {
		t.Fatalf("versions after saving: %+v", vs)
	}
	code, out = api("GET", "/api/v1/scouts/"+id+"/rules", "")
	if code != 200 || !strings.Contains(string(out), `"newsletters"`) {
		t.Fatalf("rules after saving: %d %s", code, out)
	}
}

// A change drafted from a version that is no longer current is refused
// (409) and changes nothing: saving it would undo what came between.
func TestAChangeInWordsIsNotSavedOverAnotherChange(t *testing.T) {
	api, model, id := editServer(t)
	script(model, withNewsletters(currentDoc(t, api, id)))
	code, out := api("POST", "/api/v1/scouts/"+id+"/edit-draft", `{"describe": "also archive the newsletters"}`)
	var d apitype.EditDraft
	if code != 200 || json.Unmarshal(out, &d) != nil || !d.Valid {
		t.Fatalf("edit-draft: %d %s", code, out)
	}
	// Meanwhile, the scout is changed in the window.
	if code, out := api("PATCH", "/api/v1/scouts/"+id, `{"review": false}`); code != 200 {
		t.Fatalf("patch: %d %s", code, out)
	}
	save, _ := json.Marshal(apitype.SaveEditDraft{BaseVersion: d.BaseVersion, Definition: d.Proposed, Describe: d.Describe})
	code, out = api("POST", "/api/v1/scouts/"+id+"/edit-draft/save", string(save))
	if code != 409 || !strings.Contains(string(out), "changed since") {
		t.Fatalf("save over another change: %d %s", code, out)
	}
	doc := currentDoc(t, api, id)
	if doc["rules"] != nil || doc["review"] != false {
		t.Fatalf("the definition changed: %v", doc)
	}
}

// The kind and the id of a scout cannot change: such an answer is an
// invalid draft, and saving it is refused.
func TestAChangeInWordsKeepsTheKindAndTheID(t *testing.T) {
	api, model, id := editServer(t)
	cur := currentDoc(t, api, id)
	other := map[string]any{}
	for k, v := range cur {
		other[k] = v
	}
	other["kind"] = "gmail"
	other["source"] = map[string]any{"email": "you@gmail.com", "mode": "local"}
	renumbered := map[string]any{}
	for k, v := range cur {
		renumbered[k] = v
	}
	renumbered["id"] = "someone-else"
	for _, tc := range []struct {
		doc  map[string]any
		want string
	}{{other, "kind"}, {renumbered, "id of a scout cannot change"}} {
		script(model, tc.doc)
		code, out := api("POST", "/api/v1/scouts/"+id+"/edit-draft", `{"describe": "watch my mail instead"}`)
		var d apitype.EditDraft
		if code != 200 || json.Unmarshal(out, &d) != nil {
			t.Fatalf("edit-draft: %d %s", code, out)
		}
		if d.Valid || len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Reason, tc.want) {
			t.Fatalf("a draft changing the %s: %s", tc.want, out)
		}
		b, _ := json.Marshal(tc.doc)
		save, _ := json.Marshal(apitype.SaveEditDraft{BaseVersion: 1, Definition: b, Describe: "watch my mail instead"})
		if code, out = api("POST", "/api/v1/scouts/"+id+"/edit-draft/save", string(save)); code != 400 {
			t.Fatalf("saving a change of the %s: %d %s", tc.want, code, out)
		}
	}
	if n := len(versionsOf(t, api, id)); n != 1 {
		t.Fatalf("%d versions", n)
	}
}
