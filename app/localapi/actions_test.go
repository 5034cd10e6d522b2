package localapi_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/localapi"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/engine"
)

// receiver is a webhook receiver that counts deliveries per
// Idempotency-Key and answers 500 to the first fail requests.
type receiver struct {
	mu     sync.Mutex
	keys   map[string]int
	bodies map[string][]string
	sigs   []string
	fail   int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	k := req.Header.Get("Idempotency-Key")
	r.keys[k]++
	r.bodies[k] = append(r.bodies[k], string(b))
	r.sigs = append(r.sigs, req.Header.Get("X-Scouts-Signature"))
	if r.fail > 0 {
		r.fail--
		http.Error(w, "busy", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func newActionServer(t *testing.T, home string, secrets map[string]string) *httptest.Server {
	t.Helper()
	return newActionServerWith(t, core.Config{DataDir: t.TempDir(), Home: home}, secrets)
}

// newActionServerWith is newActionServer on a core configured as cfg.
func newActionServerWith(t *testing.T, cfg core.Config, secrets map[string]string) *httptest.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Version = "test"
	cfg.Secrets = func(_ context.Context, name string) ([]byte, error) {
		if v, ok := secrets[name]; ok {
			return []byte(v), nil
		}
		return nil, scouts.Errorf(scouts.ENotFound, "no secret %s", name)
	}
	c, err := core.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(localapi.New(c, localapi.Options{Token: token}).TCPHandler(l.Addr()))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(func() { srv.Close(); cancel(); c.Close() })
	return srv
}

func mustCall(t *testing.T, srv *httptest.Server, method, path, body string, want int, out any) {
	t.Helper()
	status, e, b := call(t, srv, method, path, body)
	if status != want {
		t.Fatalf("%s %s: %d %s %s, want %d", method, path, status, e.Code, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
}

func planOf(t *testing.T, srv *httptest.Server, id string) apitype.Plan {
	t.Helper()
	var s apitype.Suggestion
	mustCall(t, srv, "GET", "/api/v1/suggestions/"+id, "", 200, &s)
	if s.Plan == nil {
		t.Fatalf("suggestion %s has no plan", id)
	}
	return *s.Plan
}

func waitPlan(t *testing.T, srv *httptest.Server, id string, ok func(apitype.Plan) bool) apitype.Plan {
	t.Helper()
	var p apitype.Plan
	awaitStream(t, srv, "the plan of "+id, func() bool { p = planOf(t, srv, id); return ok(p) })
	return p
}

// awaitStream waits until done reports true, checking it once the event
// stream is open (what changed before is read then) and again after each
// event (what changes after comes with one).
func awaitStream(t *testing.T, srv *httptest.Server, what string, done func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp := openStream(t, ctx, srv, "")
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for !done() {
		// An event ends with an empty line.
		for sc.Scan() && sc.Text() != "" {
		}
		if sc.Err() != nil || ctx.Err() != nil {
			t.Fatalf("%s never got there within 20s (stream: %v)", what, sc.Err())
		}
	}
}

func actionIn(p apitype.Plan, action string) apitype.PlanAction {
	for _, a := range p.Actions {
		if a.Action == action {
			return a
		}
	}
	return apitype.PlanAction{}
}

func TestActionCatalogueIsListed(t *testing.T) {
	srv := newActionServer(t, t.TempDir(), nil)
	var list []apitype.ActionDef
	mustCall(t, srv, "GET", "/api/v1/actions", "", 200, &list)
	got := map[string]apitype.ActionDef{}
	for _, a := range list {
		got[a.Name] = a
		var schema map[string]any
		if json.Unmarshal(a.Schema, &schema) != nil || schema["type"] != "object" || a.Description == "" {
			t.Errorf("%s: schema %s, description %q", a.Name, a.Schema, a.Description)
		}
	}
	if len(got) != 12 {
		t.Fatalf("%d actions: %v", len(got), list)
	}
	if a := got["gmail.trash"]; a.Risk != "danger" || a.InferredMode != "require_approval" || a.Runs != "outbox" || a.Available {
		t.Errorf("gmail.trash without Gmail set up: %+v", a)
	}
	if a := got["task.create"]; a.Runs != "local" || !a.Available {
		t.Errorf("task.create: %+v", a)
	}
	if a := got["webhook.post"]; !a.Available || a.Runs != "outbox" {
		t.Errorf("webhook.post: %+v", a)
	}
}

// folderCard makes a folder scout under home and returns its first card.
func folderCard(t *testing.T, srv *httptest.Server, home string) (scoutID string, card apitype.Suggestion) {
	t.Helper()
	dir := filepath.Join(home, "Inbox")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "invoice.txt"), []byte("Invoice 42\n\nPlease pay the amount due by Friday.\n"), 0o644)
	var sc apitype.Scout
	mustCall(t, srv, "POST", "/api/v1/scouts", `{"kind":"folder","path":"`+dir+`","include_existing":true}`, 201, &sc)
	var list []apitype.Suggestion
	awaitStream(t, srv, "a card", func() bool {
		mustCall(t, srv, "GET", "/api/v1/suggestions?scout_id="+sc.ID, "", 200, &list)
		return len(list) == 1
	})
	return sc.ID, list[0]
}

func TestPlanWithWebhookAndFileMoveThroughTheAPI(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "Filed"), 0o755)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(home, "escape"))
	rcv := &receiver{keys: map[string]int{}, bodies: map[string][]string{}, fail: 1}
	hook := httptest.NewServer(rcv)
	defer hook.Close()
	srv := newActionServer(t, home, map[string]string{"hook-key": "s3cret"})
	scoutID, card := folderCard(t, srv, home)

	// The scout's write scope is the default, ~/Sorted: a move to ~/Filed
	// is refused naming it, until the scope allows every folder (so that
	// each other check below is seen alone).
	if status, e, _ := call(t, srv, "POST", "/api/v1/suggestions/"+card.ID+"/approve",
		`{"as":"task","actions":[{"action":"file.move","params":{"to":"`+filepath.Join(home, "Filed")+`"},"enabled":true}]}`); status != 400 ||
		!strings.Contains(e.Error, "~/Filed is outside the scout's write scope [~/Sorted/**] (the default)") {
		t.Fatalf("a move out of the default scope: %d %q", status, e.Error)
	}
	var sc apitype.Scout
	mustCall(t, srv, "PATCH", "/api/v1/scouts/"+scoutID, `{"write_scope":{"folders":["/**"]}}`, 200, &sc)
	if sc.WriteScope.Folders.Default || strings.Join(sc.WriteScope.Folders.Globs, ",") != "/**" || !sc.WriteScope.Hosts.Default ||
		strings.Join(sc.WriteScope.Hosts.Globs, ",") != "localhost,127.0.0.1,::1" {
		t.Fatalf("the scout's scope after the change: %+v", sc.WriteScope)
	}

	p := planOf(t, srv, card.ID)
	if len(p.Actions) != 1 || p.Actions[0].State != "proposed" || p.Actions[0].Mode != "require_approval" || p.Actions[0].ModeSource != "inferred" {
		t.Fatalf("proposed plan %+v", p)
	}

	// Policies: the scout may not move files; webhooks are allowed.
	var pol apitype.Policies
	mustCall(t, srv, "PUT", "/api/v1/policies", `{"global":{"webhook.post":"allow"},"scouts":{"`+scoutID+`":{"file.move":"deny"}}}`, 200, &pol)
	if pol.Global["webhook.post"] != "allow" || pol.Scouts[scoutID]["file.move"] != "deny" {
		t.Fatalf("policies %+v", pol)
	}
	mustCall(t, srv, "GET", "/api/v1/policies?scout_id="+scoutID, "", 200, &pol)
	for _, r := range pol.Resolved {
		if r.Action == "file.move" && (r.Mode != "deny" || r.Source != "scout") {
			t.Errorf("file.move resolves to %+v", r)
		}
	}
	move := func(to string) string {
		return `{"action":"file.move","params":{"to":"` + to + `"},"enabled":true}`
	}
	post := `{"action":"webhook.post","params":{"url":"` + hook.URL + `/in","secret":{"secret":"hook-key"}},"enabled":true}`
	approve := func(actions ...string) (int, apitype.Error) {
		status, e, _ := call(t, srv, "POST", "/api/v1/suggestions/"+card.ID+"/approve", `{"as":"task","actions":[`+strings.Join(actions, ",")+`]}`)
		return status, e
	}
	bad := []struct {
		actions []string
		says    string
	}{
		{[]string{move(filepath.Join(home, "Filed"))}, "denied by the scout policy"},
		{[]string{`{"action":"webhook.post","params":{"url":"` + hook.URL + `","secret":{"secret":"nope"}},"enabled":true}`}, `no secret named "nope"`},
		{[]string{`{"action":"webhook.post","params":{"url":"http://example.com/x"},"enabled":true}`}, "use https"},
		{[]string{`{"action":"gmail.archive","enabled":true}`}, "gmail cards only"},
	}
	for _, tc := range bad {
		if status, e := approve(tc.actions...); status != 400 || !strings.Contains(e.Error, tc.says) {
			t.Errorf("%v: %d %q, want 400 saying %q", tc.actions, status, e.Error, tc.says)
		}
	}
	mustCall(t, srv, "PUT", "/api/v1/policies", `{"scouts":{"`+scoutID+`":{"file.move":null}}}`, 200, nil)
	for _, tc := range []struct{ to, says string }{
		{outside, "outside your home folder"},
		{filepath.Join(home, "escape"), "outside your home folder"},
		{filepath.Join(home, "Inbox"), "inside the folder this scout watches"},
		{filepath.Join(home, "Missing"), "does not exist"},
	} {
		if status, e := approve(move(tc.to)); status != 400 || !strings.Contains(e.Error, tc.says) {
			t.Errorf("move to %s: %d %q, want 400 saying %q", tc.to, status, e.Error, tc.says)
		}
	}
	if status, _, b := call(t, srv, "POST", "/api/v1/suggestions/"+card.ID+"/approve", `{"as":"task","gmail":{"archive":true}}`); status != 400 || !strings.Contains(string(b), "gmail cards only") {
		t.Errorf("the older gmail field on a folder card: %d %s", status, b)
	}
	if got := planOf(t, srv, card.ID); len(got.Actions) != 1 || got.Actions[0].State != "proposed" {
		t.Fatalf("refused approvals recorded something: %+v", got)
	}

	if status, e := approve(move("~/Filed"), post); status != 201 {
		t.Fatalf("approve: %d %+v", status, e)
	}
	// The webhook's first attempt gets a 500: the card and Status show it
	// failing, with the error and the next attempt.
	p = waitPlan(t, srv, card.ID, func(p apitype.Plan) bool { return actionIn(p, "webhook.post").Error != "" })
	w := actionIn(p, "webhook.post")
	if !w.Failing || w.State != "queued" || w.NextRetry == nil || !strings.Contains(w.Error, "500") || p.Failing != 1 || w.N != 3 {
		t.Fatalf("failing webhook %+v (plan failing %d)", w, p.Failing)
	}
	var st apitype.Status
	mustCall(t, srv, "GET", "/api/v1/status", "", 200, &st)
	if st.FailingActions != 1 {
		t.Fatalf("status failing_actions %d", st.FailingActions)
	}
	var failing []apitype.PlanAction
	mustCall(t, srv, "GET", "/api/v1/actions/failing", "", 200, &failing)
	if len(failing) != 1 || failing[0].SuggestionID != card.ID || failing[0].N != 3 || !failing[0].Failing {
		t.Fatalf("failing actions %+v", failing)
	}
	var retried apitype.PlanAction
	mustCall(t, srv, "POST", "/api/v1/suggestions/"+card.ID+"/actions/3/retry", "", 200, &retried)
	p = waitPlan(t, srv, card.ID, func(p apitype.Plan) bool {
		return actionIn(p, "webhook.post").State == "done" && actionIn(p, "file.move").State == "done"
	})
	if _, err := os.Stat(filepath.Join(home, "Filed", "invoice.txt")); err != nil {
		t.Fatalf("the file was not moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "Inbox", "invoice.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file is still in the inbox folder: %v", err)
	}
	// Two deliveries, one key, the same body, signed with the secret.
	rcv.mu.Lock()
	key := engine.ActionKey(card.ID, 3)
	if len(rcv.keys) != 1 || rcv.keys[key] != 2 || rcv.bodies[key][0] != rcv.bodies[key][1] {
		t.Errorf("deliveries by key %v", rcv.keys)
	}
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write([]byte(rcv.bodies[key][0]))
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); rcv.sigs[0] != want {
		t.Errorf("signature %q, want %q", rcv.sigs[0], want)
	}
	if strings.Contains(rcv.bodies[key][0], "Please pay") {
		t.Errorf("the webhook got the item's text: %s", rcv.bodies[key][0])
	}
	rcv.mu.Unlock()

	status, e, _ := call(t, srv, "POST", "/api/v1/suggestions/"+card.ID+"/actions/3/retry", "")
	if status != 409 || !strings.Contains(e.Error, "only a failing action") {
		t.Errorf("retrying a done action: %d %q", status, e.Error)
	}
	if status, _, _ := call(t, srv, "POST", "/api/v1/suggestions/"+card.ID+"/actions/x/drop", ""); status != 400 {
		t.Errorf("drop action x: %d", status)
	}
	if status, _, _ := call(t, srv, "POST", "/api/v1/suggestions/"+card.ID+"/actions/9/drop", ""); status != 404 {
		t.Errorf("drop action 9: %d", status)
	}
	// The trail: the decision, each action with its mode, the attempts.
	var trail []apitype.AuditEvent
	mustCall(t, srv, "GET", "/api/v1/audit?trace_id="+card.TraceID, "", 200, &trail)
	var types []string
	for _, ev := range trail {
		types = append(types, ev.Type)
		if ev.Refs["action"] != "" && ev.Refs["mode"] == "" {
			t.Errorf("%s without its mode: %v", ev.Type, ev.Refs)
		}
	}
	for _, want := range []string{"suggestion.approved", "action.queued", "action.attempt", "action.failed", "action.retried", "action.done"} {
		if !strings.Contains(strings.Join(types, " "), want) {
			t.Errorf("trail %v has no %s", types, want)
		}
	}
}

func TestPoliciesRefuseBadInput(t *testing.T) {
	srv := newActionServer(t, t.TempDir(), nil)
	cases := []struct{ body, says string }{
		{`{"global":{"gmail.delete":"allow"}}`, "unknown action"},
		{`{"global":{"gmail.trash":"always"}}`, "allow, deny or require_approval"},
		{`{"scouts":{"sc_nope":{"gmail.trash":"deny"}}}`, "not found"},
		{`{"defaults":{"gmail_archive":true,"gmail_label":"   "}}`, "gmail_label"},
	}
	for _, tc := range cases {
		status, e, _ := call(t, srv, "PUT", "/api/v1/policies", tc.body)
		if status < 400 || !strings.Contains(e.Error, tc.says) {
			t.Errorf("%s: %d %q, want an error saying %q", tc.body, status, e.Error, tc.says)
		}
	}
	var pol apitype.Policies
	mustCall(t, srv, "PUT", "/api/v1/policies", `{"global":{"gmail.trash":"deny"},"defaults":{"gmail_archive":false,"gmail_label":"Scouts"}}`, 200, &pol)
	if pol.Global["gmail.trash"] != "deny" || pol.Defaults.GmailArchive || pol.Defaults.GmailLabel != "Scouts" {
		t.Fatalf("%+v", pol)
	}
}
