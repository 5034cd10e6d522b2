package definition_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/definition"
)

// YAML has numbers JSON has not (.nan, .inf): a definition holding one is
// refused at its line, by name, not with "json: unsupported value".
func TestADefinitionWithANonFiniteNumberIsRefused(t *testing.T) {
	for _, v := range []string{".nan", ".inf", "-.Inf"} {
		doc := fmt.Sprintf("version: 1\nkind: folder\nname: Scans\nsource:\n  path: /s\nlearning:\n  cold_start: 10\n  screen_below: %s\n", v)
		_, err := definition.Parse("scans.yaml", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), "scans.yaml:8: ") || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("%s: %v", v, err)
		}
	}
}
