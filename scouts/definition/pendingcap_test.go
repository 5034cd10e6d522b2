package definition_test

import (
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/definition"
)

// A definition's pending cap is read when in range and refused by the
// schema at its line when not; absent, it is 0 (the default, 500).
func TestAPendingCapIsCheckedInADefinition(t *testing.T) {
	doc := func(cap string) []byte {
		return []byte("version: 1\nkind: folder\nname: Scans\nsource:\n  path: /s\nlearning:\n  cold_start: 10\n" + cap)
	}
	d, err := definition.Parse("scans.yaml", doc("  pending_cap: 50\n"))
	if err != nil || d.Learning == nil || d.Learning.PendingCap != 50 {
		t.Fatalf("pending_cap 50: %+v, %v", d.Learning, err)
	}
	d, err = definition.Parse("scans.yaml", doc(""))
	if err != nil || d.Learning == nil || d.Learning.PendingCap != 0 {
		t.Fatalf("no pending_cap: %+v, %v", d.Learning, err)
	}
	for _, bad := range []string{"-1", "100001", "lots"} {
		_, err := definition.Parse("scans.yaml", doc("  pending_cap: "+bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), "pending_cap") {
			t.Errorf("pending_cap %s: %v, want refused naming it", bad, err)
		}
	}
}
