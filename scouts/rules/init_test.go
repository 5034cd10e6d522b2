package rules

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestPackageInitsAllocateLittle: starting a process that links the rule
// grammar compiles no JSON Schema: the validator library compiled its
// drafts' metaschemas in an initialiser (1.70 MB at every start of the
// agent); it does on first use now (third_party/jsonschema), as the
// grammar's own schema is. Read from the Go runtime's init trace of this
// test binary, started again to do nothing.
func TestPackageInitsAllocateLittle(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @.* (\d+) bytes, \d+ allocs$`)
	seen := map[string]int{}
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[2])
		seen[m[1]] = n
	}
	for _, pkg := range []string{"github.com/santhosh-tekuri/jsonschema/v6", "github.com/scouts-hq/scouts/scouts/rules"} {
		n, ok := seen[pkg]
		if !ok {
			t.Fatalf("no init trace of %s in:\n%s", pkg, out)
		}
		if n > 32<<10 {
			t.Errorf("%s allocates %d bytes when the process starts, more than %d", pkg, n, 32<<10)
		}
	}
}
