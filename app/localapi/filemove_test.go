package localapi_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
)

// steeringHome is a home folder laid out as on a desktop: the agent's
// data, configuration and definitions folders in it, a private ~/.ssh,
// ~/Sorted/bills for the moves, and ~/Inbox watched by a folder scout
// whose rule moves each text file to "~/Sorted/{{.text | trim}}", a
// policy allowing file.move without approval.
func steeringHome(t *testing.T) (home, data, config, defs string, srv *httptest.Server, scoutID string) {
	t.Helper()
	home = t.TempDir()
	data = filepath.Join(home, ".local", "share", "scouts")
	config = filepath.Join(home, ".config", "scouts")
	defs = filepath.Join(config, "scouts.d")
	for _, d := range []string{data, defs, filepath.Join(home, ".ssh"), filepath.Join(home, "Sorted", "bills"), filepath.Join(home, "Inbox")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	srv = newActionServerWith(t, core.Config{DataDir: data, Home: home, ProtectedDirs: []string{config}, DefinitionsDir: defs}, nil)
	var sc apitype.Scout
	mustCall(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+filepath.Join(home, "Inbox")+`"}`, 201, &sc)
	mustCall(t, srv, "POST", "/api/v1/scouts/"+sc.ID+"/rules", `{"id":"sort","when":{"ext":{"equals":"txt"}},
		"then":{"verdict":"show","actions":[{"action":"file.move","params":{"to":"~/Sorted/{{.text | trim}}"}}]}}`, 201, nil)
	mustCall(t, srv, "PUT", "/api/v1/policies", `{"global":{"file.move":"allow"}}`, 200, nil)
	return home, data, config, defs, srv, sc.ID
}

// cardsByFile waits until the scout has n cards and returns them by
// their file's name.
func cardsByFile(t *testing.T, srv *httptest.Server, scoutID string, n int) map[string]apitype.Suggestion {
	t.Helper()
	var list []apitype.Suggestion
	awaitStream(t, srv, "the cards", func() bool {
		mustCall(t, srv, "GET", "/api/v1/suggestions?status=all&lane=all&scout_id="+scoutID, "", 200, &list)
		return len(list) == n
	})
	out := map[string]apitype.Suggestion{}
	for _, s := range list {
		out[filepath.Base(s.Path)] = s
	}
	return out
}

func trailSays(t *testing.T, srv *httptest.Server, traceID, says string) bool {
	t.Helper()
	var trail []apitype.AuditEvent
	mustCall(t, srv, "GET", "/api/v1/audit?trace_id="+traceID, "", 200, &trail)
	for _, ev := range trail {
		if strings.Contains(ev.Summary, says) {
			return true
		}
	}
	return false
}

// A rule's template in file.move's "to" takes the item's text: a file
// whose text climbs out of ~/Sorted ("../.config/scouts/scouts.d",
// "a/../../.ssh") is refused when it arrives, with the reason on its
// trail, and stays where it was; one naming a folder in ~/Sorted moves.
func TestARuleTemplateCannotMoveAFileOutOfItsPrefix(t *testing.T) {
	home, _, _, defs, srv, scoutID := steeringHome(t)
	inbox := filepath.Join(home, "Inbox")
	files := map[string]string{
		"climb.txt": "../.config/scouts/scouts.d\n",
		"ssh.txt":   "a/../../.ssh\n",
		"bills.txt": "bills\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(inbox, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cards := cardsByFile(t, srv, scoutID, len(files))
	good := cards["bills.txt"]
	if good.ID == "" {
		t.Fatalf("no card for bills.txt: %v", cards)
	}
	waitPlan(t, srv, good.ID, func(p apitype.Plan) bool { return actionIn(p, "file.move").State == "done" })
	if _, err := os.Stat(filepath.Join(home, "Sorted", "bills", "bills.txt")); err != nil {
		t.Fatalf("the file naming a folder in ~/Sorted was not moved: %v", err)
	}
	for _, name := range []string{"climb.txt", "ssh.txt"} {
		c := cards[name]
		if c.ID == "" {
			t.Fatalf("no card for %s: %v", name, cards)
		}
		if !trailSays(t, srv, c.TraceID, `".." segment`) {
			t.Errorf("%s: the trail does not say why the move was refused", name)
		}
		if p := planOf(t, srv, c.ID); actionIn(p, "file.move").State == "done" {
			t.Errorf("%s: file.move ran: %+v", name, p)
		}
		if _, err := os.Stat(filepath.Join(inbox, name)); err != nil {
			t.Errorf("%s left its place: %v", name, err)
		}
	}
	for _, d := range []string{defs, filepath.Join(home, ".ssh")} {
		if entries, _ := os.ReadDir(d); len(entries) != 0 {
			t.Errorf("%s holds %v", d, entries)
		}
	}
}

// Approving a card with "to" set to the agent's data, configuration or
// definitions folder (or a folder in one) is refused with a 400 naming
// the folder; the file stays where it was and the card stays pending.
func TestApprovingAMoveIntoTheAgentsFoldersIsRefused(t *testing.T) {
	home, data, config, defs, srv, scoutID := steeringHome(t)
	mustCall(t, srv, "PUT", "/api/v1/policies", `{"global":{"file.move":null}}`, 200, nil)
	card := filepath.Join(home, "Inbox", "notes.yaml")
	if err := os.WriteFile(card, []byte("version: 1\nkind: folder\nname: Planted\nsource:\n  path: /\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := cardsByFile(t, srv, scoutID, 1)["notes.yaml"]
	if c.ID == "" {
		t.Fatal("no card for notes.yaml")
	}
	os.Mkdir(filepath.Join(defs, "sub"), 0o700)
	for _, to := range []string{data, config, defs, filepath.Join(defs, "sub"), "~/.config/scouts/scouts.d"} {
		status, e, _ := call(t, srv, "POST", "/api/v1/suggestions/"+c.ID+"/approve",
			`{"as":"note","actions":[{"action":"file.move","params":{"to":"`+to+`"},"enabled":true}]}`)
		if status != 400 || !strings.Contains(e.Error, "where Scouts keeps its own") {
			t.Errorf("approve with to %s: %d %q, want 400 naming the agent's folder", to, status, e.Error)
		}
	}
	if _, err := os.Stat(card); err != nil {
		t.Fatalf("the card's file left its place: %v", err)
	}
	var s apitype.Suggestion
	mustCall(t, srv, "GET", "/api/v1/suggestions/"+c.ID, "", 200, &s)
	if s.Status != "pending" {
		t.Fatalf("the card is %s after refused approvals", s.Status)
	}
	if entries, _ := os.ReadDir(defs); len(entries) != 1 {
		t.Fatalf("the definitions folder holds %v", entries)
	}
}
