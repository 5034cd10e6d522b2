package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/connectors/directory/watchhub/watchtest"
)

// filesystemServer returns node and the entry point of the official
// filesystem MCP server (@modelcontextprotocol/server-filesystem, from the
// npm registry), which make deps-test installs in build/mcptest. Without
// Node.js the test cannot run at all and skips; with Node.js and without
// the package, the dependency step was not run: that is a failure.
func filesystemServer(t *testing.T) (node, entry string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("Node.js is not installed, so the npm MCP server @modelcontextprotocol/server-filesystem cannot run (build/deps.sh says how to install it)")
	}
	entry, err = filepath.Abs(filepath.Join("..", "..", "build", "mcptest", "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("@modelcontextprotocol/server-filesystem is not installed in build/mcptest: run make deps-test (build/deps.sh test runs npm ci there): %v", err)
	}
	return node, entry
}

func mcpTool(s apitype.MCPServer, name string) apitype.MCPTool {
	for _, t := range s.Tools {
		if t.Name == name {
			return t
		}
	}
	return apitype.MCPTool{}
}

// The official filesystem MCP server, from npm, added with the command line
// as a person would: its tools wait for approval; once the server is
// approved its write tools still need each call approved. A folder scout's
// rule puts mcp.fs.write_file in two cards' plans: the approved card's
// file is written once even though the agent is SIGKILLed right after the
// approval, and the rejected card's never.
func TestMCPFilesystemServerWritesOnceAcrossACrash(t *testing.T) {
	watchtest.Need(t)
	node, entry := filesystemServer(t)
	ctx := context.Background()
	home := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	watched := filepath.Join(t.TempDir(), "watched")
	root, err := filepath.EvalSymlinks(t.TempDir()) // the one folder the server may touch
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(watched, 0o755); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, data, home)

	// runCLI puts --data last: here it must come before the server's
	// command, after which every argument is the server's.
	cmd := exec.Command(scoutsBinary(t), "mcp", "add", "fs", "--data", data, "--", node, entry, root)
	cmd.Env = testEnv(home)
	outb, err := cmd.CombinedOutput()
	out, errOut, code := string(outb), "", cmd.ProcessState.ExitCode()
	if code != 0 || !strings.Contains(out, "mcp.fs.write_file") || !strings.Contains(out, "scouts mcp approve fs") {
		t.Fatalf("scouts mcp add: %d\n%s%s", code, out, errOut)
	}
	s, err := a.client.MCPServer(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if w := mcpTool(s, "write_file"); w.Status != "new" || w.Blocked == "" || s.Drifted != len(s.Tools) {
		t.Fatalf("before approval write_file is %+v (%d of %d tools waiting)", w, s.Drifted, len(s.Tools))
	}
	if out, errOut, code := runCLI(t, home, data, "mcp", "approve", "fs"); code != 0 || !strings.Contains(out, "write_file") {
		t.Fatalf("scouts mcp approve fs: %d\n%s%s", code, out, errOut)
	}
	if s, err = a.client.MCPServer(ctx, "fs"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"write_file", "edit_file", "move_file", "create_directory", "read_text_file"} {
		tool := mcpTool(s, name)
		if tool.Status != "unchanged" || tool.Blocked != "" || tool.Mode != "require_approval" {
			t.Errorf("%s once the server is approved: %+v (a write tool, or a read tool of an untrusted server, needs approval)", name, tool)
		}
	}
	out, _, _ = runCLI(t, home, data, "mcp", "list")
	if !strings.Contains(out, "mcp.fs.write_file") || !strings.Contains(out, "require_approval") {
		t.Errorf("scouts mcp list:\n%s", out)
	}

	review := true
	sc, err := a.client.CreateScout(ctx, apitype.CreateScout{Kind: "folder", Path: watched, Review: &review})
	if err != nil {
		t.Fatal(err)
	}
	approved, rejected := filepath.Join(root, "approved.txt"), filepath.Join(root, "rejected.txt")
	for _, r := range []struct{ id, suffix, path string }{{"write", "approve.md", approved}, {"never", "reject.md", rejected}} {
		doc := fmt.Sprintf(`{"id":%q,"when":{"name":{"ends_with":%q}},"then":{"verdict":"show",
			"actions":[{"action":"mcp.fs.write_file","params":{"path":%q,"content":"written once\n"}}]}}`, r.id, r.suffix, r.path)
		if _, err := a.client.AddRule(ctx, sc.ID, []byte(doc), -1); err != nil {
			t.Fatalf("a rule with mcp.fs.write_file: %v", err)
		}
	}
	for _, name := range []string{"please-approve.md", "please-reject.md"} {
		if err := os.WriteFile(filepath.Join(watched, name), []byte("# "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cards := map[string]apitype.Suggestion{}
	waitOn(t, on(a.changed()), "two cards", func() bool {
		list, err := a.client.Suggestions(ctx, localclient.SuggestionQuery{Status: "pending"})
		for _, c := range list {
			cards[filepath.Base(c.Path)] = c
		}
		return err == nil && len(cards) == 2
	})
	for name, c := range cards {
		p, err := a.client.Plan(ctx, c.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if w := planStep(p, "mcp.fs.write_file"); !w.Enabled || w.Mode != "require_approval" || w.State != "proposed" {
			t.Errorf("%s: write_file in its plan is %+v", name, w)
		}
	}
	if _, err := os.Stat(approved); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written before approval: %v", err)
	}

	if _, err := a.client.Reject(ctx, cards["please-reject.md"].ID); err != nil {
		t.Fatal(err)
	}
	card := cards["please-approve.md"]
	if _, err := a.client.Approve(ctx, card.ID, apitype.Approve{As: "note"}); err != nil {
		t.Fatal(err)
	}
	// The approval is committed; the agent dies wherever its outbox is:
	// before the call, during it or after it.
	a.kill()
	// The tool server outlives the agent for a moment (it ends when its
	// standard input closes): a write it was making when the agent died
	// may land after the kill, over the file the test replaces below
	// (seen in a stress run: "written once\ne person\n"). The test looks
	// once it is gone, as the person would after the crash.
	poll(t, "the tool server to end after the agent", func() bool { return len(processesWithArg(root)) == 0 },
		func() string { return fmt.Sprint("still running: ", processesWithArg(root)) })
	// A file already there is replaced by the test: a second call of
	// write_file would put its content back.
	_, statErr := os.Stat(approved)
	writtenBefore := statErr == nil
	if writtenBefore {
		if err := os.WriteFile(approved, []byte("changed by the person\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	b := startAgent(t, data, home)
	var w apitype.PlanAction
	waitOn(t, on(b.changed()), "write_file done or failing", func() bool {
		p, err := b.client.Plan(ctx, card.ID, "")
		w = planStep(p, "mcp.fs.write_file")
		return err == nil && (w.State == "done" || w.Failing)
	}, func() string { return fmt.Sprintf("%+v", w) })
	dropped := false
	if w.Failing {
		// Killed during the call: whether it wrote is unknown, so it is
		// not called again by itself. The person looks: the file is
		// there, so they drop the action; it is not, so they retry.
		if !strings.Contains(w.Error, "interrupted") {
			t.Fatalf("write_file failed: %+v", w)
		}
		_, err := os.Stat(approved)
		t.Logf("the kill cut the call to write_file (the file there after it: %v)", err == nil)
		if err == nil {
			if _, err := b.client.DropAction(ctx, card.ID, w.N); err != nil {
				t.Fatal(err)
			}
			dropped = true
		} else {
			if _, err := b.client.RetryAction(ctx, card.ID, w.N); err != nil {
				t.Fatal(err)
			}
			waitOn(t, on(b.changed()), "write_file done after the retry", func() bool {
				p, err := b.client.Plan(ctx, card.ID, "")
				w = planStep(p, "mcp.fs.write_file")
				return err == nil && w.State == "done"
			}, func() string { return fmt.Sprintf("%+v", w) })
		}
	} else {
		t.Logf("write_file done without a retry (the file there at the kill: %v)", writtenBefore)
	}
	got, err := os.ReadFile(approved)
	if err != nil {
		t.Fatal(err)
	}
	want := "written once\n"
	if writtenBefore {
		want = "changed by the person\n" // written before the kill: never again
	}
	if string(got) != want {
		t.Errorf("approved.txt holds %q, want %q (written before the kill: %v)", got, want, writtenBefore)
	}
	if _, err := os.Stat(rejected); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rejected card's write_file wrote: %v", err)
	}
	trail, err := b.client.Audit(ctx, card.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, e := range trail {
		if e.Refs["action"] == "mcp.fs.write_file" && e.Type == "action.done" {
			done++
		}
	}
	if want := map[bool]int{false: 1, true: 0}[dropped]; done != want {
		t.Errorf("write_file done %d times on the trail, want %d", done, want)
	}
	if !dropped {
		var result map[string]any
		if json.Unmarshal(w.Result, &result) != nil || len(result) == 0 {
			t.Errorf("no result of the call on the plan: %s", w.Result)
		}
	}
	// The server's process ends with the agent, and starts again on
	// demand: the tools are known without starting it.
	out, _, _ = runCLI(t, home, data, "mcp", "list", "fs")
	if !strings.Contains(out, "mcp.fs.write_file") {
		t.Errorf("scouts mcp list fs after the restart:\n%s", out)
	}
}

func planStep(p apitype.Plan, action string) apitype.PlanAction {
	for _, a := range p.Actions {
		if a.Action == action {
			return a
		}
	}
	return apitype.PlanAction{}
}

// processesWithArg lists the processes with arg among their arguments
// (read from /proc): a test's tool server, named by the temporary folder
// it was given.
func processesWithArg(arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(b), "\x00") {
			if a == arg {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}
