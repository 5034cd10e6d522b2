package mcpserve_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/internal/apitest"
	"github.com/scouts-hq/scouts/app/mcpserve"
)

// conformanceScenarios are the official suite's server scenarios that
// concern what Scouts' server offers: the lifecycle, ping, the tools'
// listing, and the streamable HTTP transport's concurrent streams. The
// suite's other server scenarios call its reference tools
// (test_simple_text, test_reconnection for server-sse-polling, …), or
// prompts, resources, completion or logging, which this server does not
// have.
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "server-sse-multiple-streams"}

// conformanceBinary is the suite's command, installed by the test
// dependencies (make deps-test: build/mcptest) or named by
// SCOUTS_MCP_CONFORMANCE.
func conformanceBinary(t *testing.T) string {
	if p := os.Getenv("SCOUTS_MCP_CONFORMANCE"); p != "" {
		return p
	}
	p, err := filepath.Abs(filepath.Join("..", "..", "build", "mcptest", "node_modules", ".bin", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the MCP conformance suite is not installed (make deps-test installs it into build/mcptest): %v", err)
	}
	return p
}

// TestOfficialConformanceSuite runs @modelcontextprotocol/conformance
// against Scouts' server over streamable HTTP, backed by a real core's
// local API: every check of the scenarios that apply must succeed.
func TestOfficialConformanceSuite(t *testing.T) {
	bin := conformanceBinary(t)
	a := apitest.Start(t)
	srv := httptest.NewServer(mcpserve.Handler(mcpserve.Options{API: a.Client, Version: "test"}))
	defer srv.Close()
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(bin, "server", "--url", srv.URL+"/mcp", "--scenario", sc, "--output-dir", out)
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("conformance %s: %v\n%s", sc, err, b)
			}
			var checks []struct {
				ID, Name, Status, ErrorMessage string
			}
			files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
			if len(files) == 0 {
				t.Fatalf("conformance %s wrote no checks.json:\n%s", sc, b)
			}
			for _, f := range files {
				raw, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var cs []struct {
					ID, Name, Status, ErrorMessage string
				}
				if err := json.Unmarshal(raw, &cs); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				checks = append(checks, cs...)
			}
			ok := 0
			for _, c := range checks {
				switch strings.ToUpper(c.Status) {
				case "SUCCESS":
					ok++
				case "INFO":
				default:
					t.Errorf("%s: check %s (%s) %s: %s", sc, c.ID, c.Name, c.Status, c.ErrorMessage)
				}
			}
			if ok == 0 {
				t.Errorf("%s: no check succeeded:\n%s", sc, b)
			}
			t.Logf("%s: %d checks succeeded", sc, ok)
		})
	}
}
