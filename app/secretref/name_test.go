package secretref

import (
	"regexp"
	"strings"
	"testing"
)

// TestSecretNameCheckMatchesExpression: the loop accepts exactly what the
// expression it replaced accepted.
func TestSecretNameCheckMatchesExpression(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	names := []string{"", "a", "llm-api-key", "A.b_c-9", strings.Repeat("x", 100), strings.Repeat("x", 101),
		"a b", "a/b", "é", "a\n", "\na", "a$", "ä" + strings.Repeat("x", 99), "\xff", "Z0", "-", ".", "_"}
	for c := 0; c < 256; c++ {
		names = append(names, string(rune(c)), "k"+string([]byte{byte(c)}))
	}
	for _, n := range names {
		if got, want := CheckName(n) == nil, re.MatchString(n); got != want {
			t.Errorf("%q: accepted %v, the expression %v", n, got, want)
		}
	}
}
