package cli

import (
	"strings"
	"testing"
)

// scouts search prints what the words find, with where each hit is, and
// says why when a filter cannot be read.
func TestSearchFromTheCommandLine(t *testing.T) {
	dir, _ := startTestAgent(t)
	if out, errOut, code := cli(t, dir, "notes", "add", "Lisbon hotels", "--body", "Bairro Alto is loud at night"); code != 0 {
		t.Fatalf("notes add: %d %s%s", code, out, errOut)
	}
	out, errOut, code := cli(t, dir, "search", "lisb", "kind:note")
	if code != 0 || !strings.Contains(out, "Lisbon hotels") || !strings.Contains(out, "note") {
		t.Fatalf("search lisb kind:note: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli(t, dir, "search", "lane:archive")
	if code == 0 || !strings.Contains(errOut, "lane:archive is not a lane") {
		t.Fatalf("search lane:archive: %d\n%s%s", code, out, errOut)
	}
}
