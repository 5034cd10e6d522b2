package definition

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/rules"
)

// TestAsManyRulesAsAScoutHolds: the rules API lets a scout have
// rules.MaxRules rules, so its export (and the file write_file writes)
// must import again; the schema once stopped at 200.
func TestAsManyRulesAsAScoutHolds(t *testing.T) {
	rs := make([]string, rules.MaxRules)
	for i := range rs {
		rs[i] = fmt.Sprintf(`{"id": "r%d", "when": {"name": {"equals": "f%d"}}, "then": {"verdict": "show"}}`, i, i)
	}
	doc := `{"version": 1, "kind": "folder", "name": "Many", "source": {"path": "/tmp/x"}, "rules": [` + strings.Join(rs, ",") + `]}`
	d, err := Parse("many.json", []byte(doc))
	if err != nil {
		t.Fatalf("a scout with %d rules, as many as it may have, does not import: %v", rules.MaxRules, err)
	}
	if len(d.Rules) != rules.MaxRules {
		t.Fatalf("read %d rules, want %d", len(d.Rules), rules.MaxRules)
	}
	over := `{"version": 1, "kind": "folder", "name": "Many", "source": {"path": "/tmp/x"}, "rules": [` + strings.Join(append(rs, rs[0]), ",") + `]}`
	if _, err := Parse("over.json", []byte(over)); err == nil || !strings.Contains(err.Error(), "maxItems") {
		t.Fatalf("%d rules must be refused by the schema, got %v", rules.MaxRules+1, err)
	}
}
