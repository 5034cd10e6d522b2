package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/apitype"
)

// TestRulesCommands: scouts rules — list, add (file and standard input),
// test, disable, enable, move, edit, rm — against a real agent, with the
// agent's own error for a bad document.
func TestRulesCommands(t *testing.T) {
	dir, c := startTestAgent(t)
	folder := t.TempDir()
	os.WriteFile(filepath.Join(folder, "report.pdf"), []byte("%PDF-1.4"), 0o644)
	sc, err := c.CreateScout(context.Background(), apitype.CreateScout{Kind: "folder", Path: folder, IncludeExisting: true})
	if err != nil {
		t.Fatal(err)
	}
	pendingCards(t, c, 1)
	file := filepath.Join(t.TempDir(), "rule.json")
	os.WriteFile(file, []byte(`{"id":"pdfs","name":"PDFs","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show","kind":"note","title":"Read {{.name}}"}}`), 0o644)

	run := func(stdin string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Main(append(args, "--data", dir), Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(stdin), Version: "test"})
		if code != 0 {
			t.Fatalf("scouts %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
		}
		return out.String()
	}
	if out := run("", "scouts", "rules", sc.ID); !strings.Contains(out, "has no rules") {
		t.Fatalf("empty list: %q", out)
	}
	if out := run("", "scouts", "rules", "test", sc.ID, file); !strings.Contains(out, "1 match") || !strings.Contains(out, `titled "Read report.pdf"`) {
		t.Fatalf("test: %q", out)
	}
	if out := run("", "scouts", "rules", "add", sc.ID, file); !strings.Contains(out, "Added rule pdfs (position 0)") {
		t.Fatalf("add: %q", out)
	}
	run(`{"id":"big","when":{"size":{"gt":1000000}},"then":{"verdict":"screen"}}`, "scouts", "rules", "add", sc.ID, "-")
	run("", "scouts", "rules", "disable", sc.ID, "pdfs")
	run("", "scouts", "rules", "move", sc.ID, "big", "0")
	out := run("", "scouts", "rules", sc.ID)
	if i, j := strings.Index(out, "big"), strings.Index(out, "pdfs"); i < 0 || j < i || !strings.Contains(out, "kind note") {
		t.Fatalf("list: %q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "pdfs") && !strings.Contains(line, " no ") {
			t.Fatalf("pdfs is not shown as off: %q", line)
		}
	}
	run("", "scouts", "rules", "enable", sc.ID, "pdfs")
	run(`{"id":"big","when":{"size":{"gt":5}},"then":{"verdict":"spam"}}`, "scouts", "rules", "edit", sc.ID, "-")
	if out := run("", "scouts", "rules", "show", sc.ID, "big"); !strings.Contains(out, `"spam"`) {
		t.Fatalf("show: %q", out)
	}
	run("", "scouts", "rules", "rm", sc.ID, "big")
	if out := run("", "scouts", "rules", "schema", "gmail"); !strings.Contains(out, `"list_id"`) {
		t.Fatalf("schema: %.200q", out)
	}

	os.WriteFile(file, []byte(`{"id":"bad","when":{"subject":{"contains":"x"}},"then":{"verdict":"show"}}`), 0o644)
	_, errOut, code := cli(t, dir, "scouts", "rules", "add", sc.ID, file)
	if code == 0 || !strings.Contains(errOut, `rule "bad" at /when/subject: folder scouts have no field "subject"`) {
		t.Fatalf("a bad document: exit %d, %q", code, errOut)
	}
}
