package localapi_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// historyOf is a scout's versions as GET /api/v1/scouts/{id}/versions
// answers them, oldest first.
type apiVersion struct {
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	Actor     string    `json:"actor"`
	Note      string    `json:"note"`
}

func historyOf(t *testing.T, srv *httptest.Server, id string) []apiVersion {
	t.Helper()
	code, _, body := call(t, srv, "GET", "/api/v1/scouts/"+id+"/versions", "")
	var list []apiVersion
	if code != 200 || json.Unmarshal(body, &list) != nil {
		t.Fatalf("versions: %d %s", code, body)
	}
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list
}

// forged is an export of scout id with its history, to which a version
// 99 "by the window", dated 2099, is added: the definition it holds (and
// the export's own) renamed to name.
func forged(t *testing.T, srv *httptest.Server, id, name string) string {
	t.Helper()
	code, _, body := call(t, srv, "GET", "/api/v1/definitions?id="+id+"&history=true", "")
	var docs []map[string]any
	if code != 200 || json.Unmarshal(body, &docs) != nil || len(docs) != 1 {
		t.Fatalf("export: %d %s", code, body)
	}
	d := docs[0]
	hist := d["history"].([]any)
	last := hist[len(hist)-1].(map[string]any)
	doc := map[string]any{}
	for k, v := range last["document"].(map[string]any) {
		doc[k] = v
	}
	doc["name"] = name
	d["history"] = append(hist, map[string]any{"version": 99, "created_at": "2099-01-01T00:00:00Z",
		"actor": "window", "note": "renamed by nobody", "document": doc})
	d["name"] = name
	out, _ := json.Marshal(docs)
	return string(out)
}

// An imported history cannot forge entries. Appended to a scout's own
// history, the versions it brings are the import's (its author, its
// time), numbered on from the scout's newest with no gap, and what the
// export claimed (number, author, date, note) is kept in the note; the
// same import again changes nothing. Creating a scout, the history keeps
// its authors but no date after the import's and no gap in its numbers.
// A version 99 "by the window" dated 2099 was accepted as is, versions
// 5–98 silently missing.
func TestImportedHistoryCannotForgeEntries(t *testing.T) {
	srv, _ := newServer(t)
	doc := fmt.Sprintf("version: 1\nkind: folder\nname: Scans\nsource:\n  path: %s\n", t.TempDir())
	code, _, body := call(t, srv, "POST", "/api/v1/definitions/import?apply=true", doc)
	var out struct {
		Changes []struct {
			ScoutID      string `json:"scout_id"`
			Action       string `json:"action"`
			Version      int    `json:"version"`
			PastVersions []int  `json:"past_versions"`
		} `json:"changes"`
	}
	if code != 200 || json.Unmarshal(body, &out) != nil || len(out.Changes) != 1 {
		t.Fatalf("create: %d %s", code, body)
	}
	id := out.Changes[0].ScoutID
	for _, n := range []string{"Two", "Three", "Four"} {
		if code, _, body := call(t, srv, "PATCH", "/api/v1/scouts/"+id, `{"name":"`+n+`"}`); code != 200 {
			t.Fatalf("patch: %d %s", code, body)
		}
	}
	file := forged(t, srv, id, "Forged")
	before := time.Now()

	code, _, body = call(t, srv, "POST", "/api/v1/definitions/import", file)
	if code != 200 || json.Unmarshal(body, &out) != nil || fmt.Sprint(out.Changes[0].PastVersions) != "[5]" {
		t.Fatalf("dry run: %d %s, want version 99 added as 5", code, body)
	}
	code, _, body = call(t, srv, "POST", "/api/v1/definitions/import?apply=true", file)
	if code != 200 || json.Unmarshal(body, &out) != nil || out.Changes[0].Version != 5 {
		t.Fatalf("import: %d %s", code, body)
	}
	checkHistory := func(list []apiVersion, n int) {
		t.Helper()
		for i, v := range list {
			if v.Version != i+1 {
				t.Errorf("version %d at place %d: a gap in the history", v.Version, i+1)
			}
			if v.CreatedAt.After(time.Now()) {
				t.Errorf("version %d dated %s, in the future", v.Version, v.CreatedAt)
			}
		}
		if len(list) != n {
			t.Errorf("%d versions, want %d", len(list), n)
		}
	}
	list := historyOf(t, srv, id)
	checkHistory(list, 5)
	got := list[len(list)-1]
	if got.Actor != "api" || got.CreatedAt.Before(before.Truncate(time.Millisecond)) {
		t.Errorf("the appended version is by %q at %s, want the import's (api, now)", got.Actor, got.CreatedAt)
	}
	for _, claim := range []string{"version 99", "window", "2099-01-01", "renamed by nobody"} {
		if !strings.Contains(got.Note, claim) {
			t.Errorf("the appended version's note %q does not keep %q", got.Note, claim)
		}
	}
	// The same file again: nothing new.
	code, _, body = call(t, srv, "POST", "/api/v1/definitions/import?apply=true", file)
	if code != 200 || json.Unmarshal(body, &out) != nil || out.Changes[0].Action != "unchanged" {
		t.Fatalf("import again: %d %s", code, body)
	}
	checkHistory(historyOf(t, srv, id), 5)

	// Into an agent that lacks the scout: the history is the scout's
	// from elsewhere and keeps its authors, but not the gap nor the date.
	srv2, _ := newServer(t)
	code, _, body = call(t, srv2, "POST", "/api/v1/definitions/import?apply=true", file)
	if code != 200 || json.Unmarshal(body, &out) != nil || out.Changes[0].Action != "create" ||
		fmt.Sprint(out.Changes[0].PastVersions) != "[1 2 3 4 5]" || out.Changes[0].Version != 5 {
		t.Fatalf("import into another agent: %d %s", code, body)
	}
	list = historyOf(t, srv2, id)
	checkHistory(list, 5)
	got = list[len(list)-1]
	if got.Actor != "window" || !strings.Contains(got.Note, "version 99") || !strings.Contains(got.Note, "2099-01-01") {
		t.Errorf("the created scout's last version: %+v", got)
	}
}
