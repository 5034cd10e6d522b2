package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/apitype"
)

// everythingServer returns node and the entry point of the official
// reference server @modelcontextprotocol/server-everything (npm, pinned in
// build/mcptest), like filesystemServer.
func everythingServer(t *testing.T) (node, entry string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("Node.js is not installed, so the npm MCP server @modelcontextprotocol/server-everything cannot run (build/deps.sh says how to install it)")
	}
	entry, err = filepath.Abs(filepath.Join("..", "..", "build", "mcptest", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("@modelcontextprotocol/server-everything is not installed in build/mcptest: run make deps-test (build/deps.sh test runs npm ci there): %v", err)
	}
	return node, entry
}

// The reference server over stdio: its tools are listed with their
// annotations and get their default modes from them only as a hint — each
// requires approval until the server is trusted, and then only the tools
// claiming to be read-only are allowed. The server announces
// notifications/tools/list_changed right after every initialize (it adds
// the tools that depend on the client's capabilities then): the listing
// that follows finds nothing changed, so a restart raises no drift.
func TestMCPEverythingServerAnnotationsAreOnlyHints(t *testing.T) {
	node, entry := everythingServer(t)
	ctx := context.Background()
	home := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	a := startAgent(t, data, home)

	cmd := exec.Command(scoutsBinary(t), "mcp", "add", "every", "--data", data, "--", node, entry, "stdio")
	cmd.Env = testEnv(home)
	outb, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(outb), "mcp.every.echo") {
		t.Fatalf("scouts mcp add every: %v\n%s", err, outb)
	}
	s, err := a.client.MCPServer(ctx, "every")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"echo", "get-sum", "toggle-simulated-logging", "gzip-file-as-resource", "trigger-long-running-operation", "get-roots-list"} {
		if tool := mcpTool(s, name); tool.Status != "new" || tool.Blocked == "" {
			t.Errorf("%s before approval: %+v, want new and blocked", name, tool)
		}
	}
	var seen struct {
		Annotations map[string]any `json:"annotations"`
	}
	if err := json.Unmarshal(mcpTool(s, "echo").Seen, &seen); err != nil || seen.Annotations["readOnlyHint"] != true {
		t.Errorf("echo's listed definition %s: want its annotations (readOnlyHint)", mcpTool(s, "echo").Seen)
	}
	if out, errOut, code := runCLI(t, home, data, "mcp", "approve", "every"); code != 0 {
		t.Fatalf("scouts mcp approve every: %d\n%s%s", code, out, errOut)
	}
	want := func(trusted bool) map[string]string {
		ro := map[bool]string{false: "require_approval", true: "allow"}[trusted]
		return map[string]string{
			"echo": ro, "get-sum": ro, "trigger-long-running-operation": ro, // readOnlyHint: allowed only when trusted
			"toggle-simulated-logging": "require_approval", // not read only
			"gzip-file-as-resource":    "require_approval", // open world
		}
	}
	check := func(when string, trusted bool) {
		t.Helper()
		s, err := a.client.MCPServer(ctx, "every")
		if err != nil {
			t.Fatal(err)
		}
		for name, mode := range want(trusted) {
			if tool := mcpTool(s, name); tool.Status != "unchanged" || tool.Blocked != "" || tool.Mode != mode {
				t.Errorf("%s, %s: %+v, want unchanged in mode %s", when, name, tool, mode)
			}
		}
		if s.Drifted != 0 {
			t.Errorf("%s: %d tools drifted", when, s.Drifted)
		}
	}
	check("approved, untrusted", false)
	if out, errOut, code := runCLI(t, home, data, "mcp", "trust", "every"); code != 0 {
		t.Fatalf("scouts mcp trust every: %d\n%s%s", code, out, errOut)
	}
	check("trusted", true)

	// The agent restarts: a new process of the server, a new initialize,
	// its list_changed and the listing after it — nothing drifted. (The
	// trail already has each tool's first listing, as new.)
	before, err := a.client.Audit(ctx, "mcp:every")
	if err != nil {
		t.Fatal(err)
	}
	a.kill()
	b := startAgent(t, data, home)
	if out, errOut, code := runCLI(t, home, data, "mcp", "refresh", "every"); code != 0 {
		t.Fatalf("scouts mcp refresh every: %d\n%s%s", code, out, errOut)
	}
	a = b
	check("after a restart", true)
	trail, err := b.client.Audit(ctx, "mcp:every")
	if err != nil {
		t.Fatal(err)
	}
	seenBefore := map[int64]bool{}
	for _, e := range before {
		seenBefore[e.ID] = true
	}
	for _, e := range trail {
		if !seenBefore[e.ID] && (e.Type == "mcp.tool_drift" || e.Type == "mcp.tool_removed") {
			t.Errorf("the trail has %s %v after an unchanged restart", e.Type, e.Refs)
		}
	}
}

// startEverythingHTTP runs the reference server over streamable HTTP and
// returns its address once it says it listens.
func startEverythingHTTP(t *testing.T, node, entry string) string {
	t.Helper()
	// A child cannot be given port 0: freePort listens on :0, notes the
	// port and closes it. Another process could take it in between (a
	// small race, which fails loudly: the server says the port is in use).
	port := freePort(t)
	cmd := exec.Command(node, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- nil
				break
			}
		}
		if len(ready) == 0 {
			ready <- fmt.Errorf("the server ended before listening:\n%s", strings.Join(lines, "\n"))
		}
		for sc.Scan() { // keep the pipe drained
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("server-everything did not say it listens")
	}
	return "http://127.0.0.1:" + port + "/mcp"
}

// A third-party server over streamable HTTP, added by its address: its
// tools are listed and blocked until approved; an AI agent proposes a call
// of its long-running tool, the person approves the card, and the outbox
// calls it once, recording the progress the server reported.
func TestMCPEverythingServerOverHTTPRunsAnApprovedCallOnce(t *testing.T) {
	node, entry := everythingServer(t)
	ctx := context.Background()
	home := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	url := startEverythingHTTP(t, node, entry)
	a := startAgent(t, data, home)

	if out, errOut, code := runCLI(t, home, data, "mcp", "add", "web", "--url", url); code != 0 || !strings.Contains(out, "mcp.web.trigger-long-running-operation") {
		t.Fatalf("scouts mcp add web --url: %d\n%s%s", code, out, errOut)
	}
	const action = "mcp.web.trigger-long-running-operation"
	params := json.RawMessage(`{"duration": 1, "steps": 3}`)
	if _, err := a.client.Propose(ctx, apitype.AgentProposal{Client: "e2e-runner", Title: "Run the long operation", Action: action, Params: params}); err == nil {
		t.Fatal("a proposal with a tool that is not approved yet was accepted")
	}
	if out, errOut, code := runCLI(t, home, data, "mcp", "approve", "web", "trigger-long-running-operation"); code != 0 {
		t.Fatalf("scouts mcp approve web: %d\n%s%s", code, out, errOut)
	}
	s, err := a.client.MCPServer(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	if tool := mcpTool(s, "trigger-long-running-operation"); tool.Blocked != "" || tool.Mode != "require_approval" {
		t.Fatalf("the approved tool of an untrusted server: %+v, want require_approval", tool)
	}
	if tool := mcpTool(s, "echo"); tool.Status != "new" || tool.Blocked == "" {
		t.Errorf("echo, not approved: %+v, want new and blocked", tool)
	}
	p, err := a.client.Propose(ctx, apitype.AgentProposal{Client: "e2e-runner", Title: "Run the long operation", Action: action, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.client.Approve(ctx, p.Suggestion.ID, apitype.Approve{As: "task"}); err != nil {
		t.Fatal(err)
	}
	var w apitype.PlanAction
	waitOn(t, on(a.changed()), "the call done", func() bool {
		pl, err := a.client.Plan(ctx, p.Suggestion.ID, "")
		w = planStep(pl, action)
		return err == nil && (w.State == "done" || w.Failing)
	}, func() string { return fmt.Sprintf("%+v", w) })
	if w.State != "done" {
		t.Fatalf("the call: %+v", w)
	}
	var result struct {
		Note     string `json:"note"`
		Progress string `json:"progress"`
	}
	if err := json.Unmarshal(w.Result, &result); err != nil || !strings.Contains(result.Note, "Long running operation completed") || !strings.HasPrefix(result.Progress, "3 of 3") {
		t.Errorf("the call's result %s: want the server's answer and its last progress (3 of 3)", w.Result)
	}
	trail, err := a.client.Audit(ctx, p.Suggestion.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, e := range trail {
		if e.Refs["action"] == action && e.Type == "action.done" {
			done++
			if !strings.Contains(e.Summary, "progress: 3 of 3") {
				t.Errorf("the trail's action.done %q: want the last progress the server reported", e.Summary)
			}
		}
	}
	if done != 1 {
		t.Errorf("the call done %d times on the trail, want once", done)
	}
}
