package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/internal/syncbuf"
)

// mcpSession starts `scouts mcp serve` for the agent of dataDir and
// connects the official Go SDK's client to it, as a coding agent would,
// under the client name name; progress gets the server's progress
// notifications.
func mcpSession(t *testing.T, dataDir, home, name string, progress func(*mcp.ProgressNotificationParams)) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(scoutsBinary(t), "mcp", "serve", "--data", dataDir)
	cmd.Env = testEnv(home)
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("scouts mcp serve's stderr:\n%s", stderr.String())
		}
	})
	opts := &mcp.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { progress(req.Params) }
	}
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to scouts mcp serve: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callTool calls a tool and decodes its structured answer into out; it
// returns the tool's error text when the tool refused.
func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, tc.Text)
			}
		}
		return strings.Join(msg, " ")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s answered %s: %v", name, b, err)
	}
	return ""
}

type mcpProposal struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Created bool   `json:"created"`
	Scout   string `json:"scout_id"`
	Plan    []struct {
		Action string `json:"action"`
		Origin string `json:"origin"`
	} `json:"plan"`
}

type mcpDecision struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Note    string `json:"note"`
	Created *struct {
		ID    string `json:"id"`
		Kind  string `json:"kind"`
		Title string `json:"title"`
		Body  string `json:"body"`
	} `json:"created"`
}

// TestMCPServeProposalsAreDecidedByThePerson drives `scouts mcp serve` over
// stdio with the Go SDK's client, against a real agent: a proposal becomes
// a card in the agent's own scout and nothing more; the person approves it
// through the local API and get_decision, waiting, answers the task it
// created; a rejected proposal answers the person's note; and no tool can
// decide.
func TestMCPServeProposalsAreDecidedByThePerson(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	a := startAgent(t, dir, home)
	progressed := make(chan *mcp.ProgressNotificationParams, 16)
	s := mcpSession(t, dir, home, "e2e-coder", func(p *mcp.ProgressNotificationParams) {
		select {
		case progressed <- p:
		default:
		}
	})
	ctx := context.Background()

	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		ro := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		if ro != (tool.Name != "propose") {
			t.Errorf("tool %s: readOnlyHint %v; only propose writes", tool.Name, ro)
		}
	}
	slices.Sort(names)
	want := []string{"get_decision", "get_suggestion", "list_events", "list_notes", "list_pending_suggestions", "list_tasks", "propose", "search"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v (none that approves, rejects or runs)", names, want)
	}

	var p mcpProposal
	if msg := callTool(t, s, "propose", map[string]any{"kind": "task", "title": "Review pull request 42", "body": "The tests fail on main since 42 was merged.",
		"due": "2030-05-31", "reason": "CI is red"}, &p); msg != "" {
		t.Fatalf("propose refused: %s", msg)
	}
	if !p.Created || p.Status != "pending" {
		t.Fatalf("propose answered %+v, want a new pending card", p)
	}
	card, err := a.client.Suggestion(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if card.Assessment == nil || card.Assessment.Due == nil || card.Assessment.Due.Local().Format("2006-01-02") != "2030-05-31" {
		t.Errorf("the card's assessment %+v: want the proposed due date for the approve preview", card.Assessment)
	}
	if card.SourceType != "agent" || card.Status != "pending" || card.Title != "Review pull request 42" || card.Sender != "e2e-coder" {
		t.Fatalf("card %+v: want a pending agent card from e2e-coder", card)
	}
	sc, err := a.client.Scout(ctx, card.ScoutID)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Kind != "agent" || sc.Name != "Agent: e2e-coder" {
		t.Fatalf("the card's scout is %s %q, want the agent scout of e2e-coder", sc.Kind, sc.Name)
	}
	if tasks, _ := a.client.Entities(ctx, "task"); len(tasks) != 0 {
		t.Fatalf("a proposal created %d tasks before anyone approved it", len(tasks))
	}
	// The same proposal again is the same card.
	var again mcpProposal
	callTool(t, s, "propose", map[string]any{"kind": "task", "title": "Review pull request 42", "body": "The tests fail on main since 42 was merged.",
		"due": "2030-05-31", "reason": "CI is red"}, &again)
	if again.ID != p.ID || again.Created {
		t.Fatalf("the same proposal again answered %+v, want card %s, not created", again, p.ID)
	}
	var brief struct {
		Cards []struct {
			ID string `json:"id"`
		} `json:"cards"`
	}
	callTool(t, s, "list_pending_suggestions", nil, &brief)
	if len(brief.Cards) != 1 || brief.Cards[0].ID != p.ID {
		t.Fatalf("list_pending_suggestions answered %+v, want the one card %s", brief.Cards, p.ID)
	}

	var d mcpDecision
	callTool(t, s, "get_decision", map[string]any{"id": p.ID}, &d)
	if d.Status != "pending" || d.Created != nil {
		t.Fatalf("before any decision get_decision answered %+v", d)
	}

	// get_decision waits; the person approves while it does.
	got := make(chan mcpDecision, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		params := &mcp.CallToolParams{Name: "get_decision", Arguments: map[string]any{"id": p.ID, "wait_seconds": 120}}
		params.SetProgressToken("wait-1")
		res, err := s.CallTool(ctx, params)
		var out mcpDecision
		if err == nil && !res.IsError {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
		}
		got <- out
	}()
	select {
	case pr := <-progressed:
		if pr.ProgressToken != "wait-1" {
			t.Fatalf("progress for token %v, want wait-1", pr.ProgressToken)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no progress notification while get_decision waited")
	}
	if _, err := a.client.Approve(ctx, p.ID, apitype.Approve{As: "task"}); err != nil {
		t.Fatal(err)
	}
	select {
	case d = <-got:
	case <-time.After(60 * time.Second):
		t.Fatal("get_decision did not answer once the card was approved")
	}
	if d.Status != "approved" || d.Created == nil || d.Created.Kind != "task" || d.Created.Title != "Review pull request 42" {
		t.Fatalf("after approval get_decision answered %+v, want the created task", d)
	}
	if task, err := a.client.Entity(ctx, "task", d.Created.ID); err != nil || task.Body != "The tests fail on main since 42 was merged." {
		t.Fatalf("the created task %s: %+v, %v (want the proposal's body)", d.Created.ID, task, err)
	}

	// search finds the card and the task it became, read only.
	var found struct {
		Results []struct {
			Type   string `json:"type"`
			ID     string `json:"id"`
			Status string `json:"status"`
			Scout  string `json:"scout"`
		} `json:"results"`
	}
	if msg := callTool(t, s, "search", map[string]any{"query": "pull request 42"}, &found); msg != "" {
		t.Fatalf("search refused: %s", msg)
	}
	var sawCard, sawTask bool
	for _, h := range found.Results {
		sawCard = sawCard || (h.Type == "card" && h.ID == p.ID && h.Status == "approved" && h.Scout == "Agent: e2e-coder")
		sawTask = sawTask || (h.Type == "task" && h.ID == d.Created.ID)
	}
	if !sawCard || !sawTask {
		t.Fatalf("search for the proposal answered %+v, want its approved card and task %s", found.Results, d.Created.ID)
	}
	if msg := callTool(t, s, "search", map[string]any{"query": "pull nope:1"}, &found); !strings.Contains(msg, "unknown filter") {
		t.Errorf("search with an unknown filter: error %q, want the search's own explanation", msg)
	}

	// A rejected proposal answers the person's note.
	var r mcpProposal
	if msg := callTool(t, s, "propose", map[string]any{"kind": "note", "title": "Delete the staging database", "reason": "it is old"}, &r); msg != "" {
		t.Fatalf("propose refused: %s", msg)
	}
	if _, err := a.client.RejectWithNote(ctx, r.ID, "Staging is still in use until Friday."); err != nil {
		t.Fatal(err)
	}
	d = mcpDecision{}
	callTool(t, s, "get_decision", map[string]any{"id": r.ID}, &d)
	if d.Status != "rejected" || d.Note != "Staging is still in use until Friday." || d.Created != nil {
		t.Fatalf("after rejection get_decision answered %+v, want rejected with the note", d)
	}

	// What cannot become a card is a tool error that says why.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"kind": "event", "title": "Stand-up"}, "starts_at"},
		{map[string]any{"title": "Ping", "action": "no.such.action"}, "unknown action"},
		{map[string]any{"title": "Post", "action": "webhook.post", "params": map[string]any{"nope": 1}}, "webhook.post"},
		{map[string]any{"kind": "spell", "title": "x"}, "kind"},
	} {
		var out mcpProposal
		msg := callTool(t, s, "propose", c.args, &out)
		if !strings.Contains(msg, c.want) {
			t.Errorf("propose %v: error %q, want one naming %q", c.args, msg, c.want)
		}
	}
	list, err := a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "all", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d cards after two proposals and four refused ones, want 2", len(list))
	}
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPOverHTTPIsOffUntilSwitchedOnAndTakesItsOwnToken checks Scouts' MCP
// endpoint on the agent's loopback listener: absent until the person
// switches it on, then open to its own token only (not the local API's),
// and the same server as scouts mcp serve — a proposal over it is a card
// in the agent scout of the client's name.
func TestMCPOverHTTPIsOffUntilSwitchedOnAndTakesItsOwnToken(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	a := startAgent(t, dir, home)
	ctx := context.Background()
	mcpTok, err := os.ReadFile(filepath.Join(dir, "mcp.token"))
	if err != nil {
		t.Fatal(err)
	}
	apiTok, err := os.ReadFile(filepath.Join(dir, "local-api.token"))
	if err != nil {
		t.Fatal(err)
	}
	endpoint := a.baseURL + "/mcp"
	post := func(token string) int {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(token))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(string(mcpTok)); code != http.StatusNotFound {
		t.Fatalf("the endpoint answered %d before it was switched on, want 404", code)
	}
	st, err := a.client.SetMCPHTTP(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if !st.HTTP || st.URL != endpoint || st.Token != strings.TrimSpace(string(mcpTok)) {
		t.Fatalf("switched on: %+v, want http on at %s with the token of mcp.token", st, endpoint)
	}
	if code := post(string(apiTok)); code != http.StatusUnauthorized {
		t.Fatalf("the local API's token got %d from the MCP endpoint, want 401", code)
	}
	if code := post("wrong"); code != http.StatusUnauthorized {
		t.Fatalf("a wrong token got %d, want 401", code)
	}
	// The MCP token opens nothing of the local API.
	other := localclient.NewTCP(a.baseURL, strings.TrimSpace(string(mcpTok)))
	if _, err := other.Suggestions(ctx, localclient.SuggestionQuery{}); err == nil {
		t.Fatal("the MCP token opened the local API")
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1.0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token: strings.TrimSpace(string(mcpTok)), next: http.DefaultTransport}}}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	s, err := c.Connect(cctx, tr, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	defer s.Close()
	var p mcpProposal
	if msg := callTool(t, s, "propose", map[string]any{"kind": "event", "title": "Release review", "starts_at": "2030-06-01T14:00:00Z", "ends_at": "2030-06-01T15:00:00Z"}, &p); msg != "" {
		t.Fatalf("propose over HTTP refused: %s", msg)
	}
	card, err := a.client.Suggestion(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if card.Sender != "http-agent" || card.ProposedKind != "event" || card.Status != "pending" {
		t.Fatalf("card %+v: want a pending event from http-agent", card)
	}

	if _, err := a.client.SetMCPHTTP(ctx, false); err != nil {
		t.Fatal(err)
	}
	if code := post(string(mcpTok)); code != http.StatusNotFound {
		t.Fatalf("the endpoint answered %d once switched off, want 404", code)
	}
}
