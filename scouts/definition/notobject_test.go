package definition_test

import (
	"testing"

	"github.com/scouts-hq/scouts/scouts/definition"
)

// A file that holds something other than a mapping (words, a number, a
// list of words) says so in a person's terms, at its line; it said "got
// string, want object".
func TestAFileThatIsNotAMappingSaysSo(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"just some words\n", "junk.yaml:1: the file does not hold a definition object (YAML or JSON mapping)"},
		{"\n\n42\n", "junk.yaml:3: the file does not hold a definition object (YAML or JSON mapping)"},
		{"- version: 1\n  kind: folder\n  name: A\n  source: {path: /a}\n- oops\n", "junk.yaml:5: item 2 of the list is not a definition object (YAML or JSON mapping)"},
	} {
		_, err := definition.ParseAll("junk.yaml", []byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.data, err, tc.want)
		}
	}
}
