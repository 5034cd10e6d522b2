package rules

import (
	"regexp"
	"strings"
	"testing"
)

// TestRuleIDCheckMatchesExpression: the loop accepts exactly what the
// expression it replaced accepted.
func TestRuleIDCheckMatchesExpression(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	ids := []string{"", "a", "r1", "A_b-9", strings.Repeat("x", 64), strings.Repeat("x", 65),
		"a.b", "a b", "é", "a\n", "\na", "\xff", "-", "_"}
	for c := 0; c < 256; c++ {
		ids = append(ids, string(rune(c)), "k"+string([]byte{byte(c)}))
	}
	for _, id := range ids {
		if got, want := ruleIDOK(id), re.MatchString(id); got != want {
			t.Errorf("%q: accepted %v, the expression %v", id, got, want)
		}
	}
}
