package cli

import (
	"strings"
	"testing"
)

// An unknown action names the command that lists the actions, not the
// API's endpoint.
func TestPoliciesUnknownActionNamesTheCommand(t *testing.T) {
	dir, _ := startTestAgent(t)
	for _, args := range [][]string{
		{"policies", "set", "gmail.archiv", "allow"},
		{"policies", "rm", "gmail.archiv"},
	} {
		_, errOut, code := cli(t, dir, args...)
		if code == 0 || !strings.Contains(errOut, `unknown action "gmail.archiv"`) || !strings.Contains(errOut, "scouts actions") ||
			strings.Contains(errOut, "/api/") {
			t.Errorf("%s: code %d, %s", strings.Join(args, " "), code, errOut)
		}
	}
}
