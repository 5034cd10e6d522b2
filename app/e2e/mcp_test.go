package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
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
	want := []string{"get_decision", "get_suggestion", "list_events", "list_notes", "list_pending_suggestions", "list_tasks", "propose"}
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
