package definition_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/definition"
)

// A diff lists array items in their order: /rules/2 before /rules/10,
// as a person reads a definition, not as strings sort.
func TestDiffListsArrayItemsInTheirOrder(t *testing.T) {
	rules := func(title string) []byte {
		var rs []string
		for i := range 12 {
			rs = append(rs, fmt.Sprintf(`{"id":"r%d","when":{},"then":{"verdict":"inbox","title":%q}}`, i, title))
		}
		return []byte(`{"version":1,"kind":"folder","name":"Scans","rules":[` + strings.Join(rs, ",") + `],"review":true}`)
	}
	a, b := rules("a"), rules("b")
	b = []byte(strings.Replace(string(b), `"review":true`, `"review":false`, 1))
	ch, err := definition.Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ch {
		got = append(got, c.Path)
	}
	want := []string{"/review"}
	for i := range 12 {
		want = append(want, fmt.Sprintf("/rules/%d/then/title", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
}
