package defdraft

import (
	"strings"
	"testing"
)

// A changed line reads as the old one removed, then the new one added,
// between the lines both share; a line added in the middle is only added.
func TestLineDiff(t *testing.T) {
	a := "{\n  \"name\": \"Docs\",\n  \"review\": true\n}\n"
	b := "{\n  \"name\": \"Docs\",\n  \"review\": false,\n  \"rules\": []\n}\n"
	var got []string
	for _, l := range LineDiff(a, b) {
		got = append(got, map[string]string{"same": " ", "add": "+", "remove": "-"}[l.Op]+l.Text)
	}
	want := []string{"{", `  "name": "Docs",`, `-  "review": true`, `+  "review": false,`, `+  "rules": []`, "}"}
	for i := range want {
		if i < 2 || i == 5 {
			want[i] = " " + want[i]
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
