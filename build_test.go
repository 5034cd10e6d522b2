package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEveryTestStageRuns: `make test` runs each stage whatever became of
// the ones before (a failing Go package kept the browser tests from
// running), and ends with which failed and a failing exit. The stages
// here are shell commands in place of make targets (TEST_RUN).
func TestEveryTestStageRuns(t *testing.T) {
	dir := t.TempDir()
	mark := func(name string) string { return "touch " + dir + "/" + name }
	cmd := exec.Command("build/test.sh", mark("vet"), mark("go")+"; exit 3", mark("ui"), mark("browser"))
	cmd.Env = append(os.Environ(), "TEST_RUN=sh -c")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("a failing stage: %v, want exit 1\n%s", err, out)
	}
	for _, s := range []string{"vet", "go", "ui", "browser"} {
		if _, err := os.Stat(dir + "/" + s); err != nil {
			t.Errorf("stage %s did not run after a failure\n%s", s, out)
		}
	}
	if !strings.Contains(string(out), "FAILED  "+mark("go")+"; exit 3 (exit 3") || !strings.Contains(string(out), "1 of 4 stage(s) failed") {
		t.Errorf("the summary does not name the failed stage:\n%s", out)
	}

	cmd = exec.Command("build/test.sh", "true", "true")
	cmd.Env = append(os.Environ(), "TEST_RUN=sh -c")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "all 2 stage(s) passed") {
		t.Fatalf("passing stages: %v\n%s", err, out)
	}
}

// TestMakeTestRunsTheScript keeps make test on build/test.sh with every
// stage, and make run on the one binary it runs.
func TestMakeTestRunsTheScript(t *testing.T) {
	out, err := exec.Command("make", "-n", "test", "run").CombinedOutput()
	if err != nil {
		t.Skipf("make -n: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "build/test.sh vet test-go test-window test-ui test-browser") {
		t.Errorf("make test does not run every stage through build/test.sh:\n%s", s)
	}
	if strings.Contains(s, "-o bin/scouts-window") || strings.Contains(s, "-o bin/scouts-relay") {
		t.Errorf("make run builds what it does not run:\n%s", s)
	}
}
