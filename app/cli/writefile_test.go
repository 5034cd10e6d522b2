package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/definition"
)

// A scout its definitions file manages, changed from the command line:
// each command that changes it is refused with a message naming
// --write-file, changes nothing, and with --write-file makes the change
// and writes it to the file.
func TestWriteFileFromTheCommandLine(t *testing.T) {
	dir, c := startTestAgent(t)
	ctx := context.Background()
	defs := filepath.Join(dir, "config", "scouts.d")
	drop := filepath.Join(t.TempDir(), "Scans")
	os.MkdirAll(drop, 0o755)
	file := filepath.Join(defs, "scans.json")
	start, _ := json.Marshal(map[string]any{"version": 1, "kind": "folder", "name": "Scans", "source": map[string]any{"path": drop},
		"rules": []any{
			map[string]any{"id": "first", "when": map[string]any{"ext": map[string]any{"equals": "pdf"}}, "then": map[string]any{"verdict": "show"}},
		}})
	if err := os.WriteFile(file, start, 0o600); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, dir, func() string { out, _, _ := cli(t, dir, "scouts"); return out }, "managed by scans.json")
	list, err := c.Scouts(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("scouts: %v %v", list, err)
	}
	id := list[0].ID
	ruleFile := func(doc string) string {
		p := filepath.Join(t.TempDir(), "rule.json")
		os.WriteFile(p, []byte(doc), 0o600)
		return p
	}
	second := ruleFile(`{"id":"second","when":{"ext":{"equals":"txt"}},"then":{"verdict":"screen"}}`)
	edited := ruleFile(`{"id":"second","when":{"ext":{"equals":"md"}},"then":{"verdict":"screen"}}`)
	inFile := func() definition.Document {
		t.Helper()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := definition.Parse("scans.json", data)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ruleIDs := func(d definition.Document) string {
		var ids []string
		for _, r := range d.Rules {
			var m struct {
				ID      string `json:"id"`
				Enabled *bool  `json:"enabled"`
				When    any    `json:"when"`
			}
			json.Unmarshal(r, &m)
			s := m.ID
			if m.Enabled != nil && !*m.Enabled {
				s += "(off)"
			}
			if w, _ := json.Marshal(m.When); strings.Contains(string(w), `"md"`) {
				s += "(md)"
			}
			ids = append(ids, s)
		}
		return strings.Join(ids, " ")
	}
	for _, tc := range []struct {
		args []string
		in   func(d definition.Document) bool
	}{
		{[]string{"scouts", "auto", id}, func(d definition.Document) bool { return !d.Review }},
		{[]string{"scouts", "disable", id}, func(d definition.Document) bool { return !d.Enabled }},
		{[]string{"scouts", "enable", id}, func(d definition.Document) bool { return d.Enabled }},
		{[]string{"scouts", "rules", "add", id, second}, func(d definition.Document) bool { return ruleIDs(d) == "first second" }},
		{[]string{"scouts", "rules", "edit", id, edited}, func(d definition.Document) bool { return ruleIDs(d) == "first second(md)" }},
		{[]string{"scouts", "rules", "disable", id, "first"}, func(d definition.Document) bool { return ruleIDs(d) == "first(off) second(md)" }},
		{[]string{"scouts", "rules", "move", id, "second", "0"}, func(d definition.Document) bool { return ruleIDs(d) == "second(md) first(off)" }},
		{[]string{"scouts", "rules", "rm", id, "first"}, func(d definition.Document) bool { return ruleIDs(d) == "second(md)" }},
		{[]string{"learning", id, "--cold-start", "12"}, func(d definition.Document) bool { return d.Learning != nil && d.Learning.ColdStart == 12 }},
		{[]string{"scouts", "schedule", id, "--cron", "@hourly"}, func(d definition.Document) bool { return d.Schedule != nil && d.Schedule.Cron == "@hourly" }},
		{[]string{"scouts", "budget", id, "--day", "5000"}, func(d definition.Document) bool { return d.Budget != nil && d.Budget.DayTokens == 5000 }},
	} {
		before, _ := os.ReadFile(file)
		out, errOut, code := cli(t, dir, tc.args...)
		if code != 1 || !strings.Contains(errOut, "managed by scans.json — edit the file, or run the command again with --write-file to write this change to it") {
			t.Fatalf("%v without --write-file: exit %d %q %q", tc.args, code, out, errOut)
		}
		if after, _ := os.ReadFile(file); string(after) != string(before) || tc.in(inFile()) {
			t.Fatalf("%v: a refused change reached the file:\n%s", tc.args, after)
		}
		out, errOut, code = cli(t, dir, append(tc.args, "--write-file")...)
		if code != 0 {
			t.Fatalf("%v --write-file: exit %d %q %q", tc.args, code, out, errOut)
		}
		if d := inFile(); !tc.in(d) {
			t.Fatalf("%v --write-file: the file does not hold the change: %+v rules %s", tc.args, d, ruleIDs(d))
		}
	}
	// The agent holds what the file says, and the scout is still the
	// file's.
	s, err := c.Scout(ctx, id)
	if err != nil || s.Review || !s.Enabled {
		t.Fatalf("scout after the changes: %+v %v", s, err)
	}
	waitOutput(t, dir, func() string { out, _, _ := cli(t, dir, "scouts"); return out }, "managed by scans.json")
}
