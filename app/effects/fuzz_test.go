package effects_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/rules"
)

// FuzzFileMoveTemplate renders a rule's file.move destination,
// "~/Sorted/" followed by a template, over any item text, as a folder
// scout's rule does when a file arrives, and checks the move: it is
// refused, or its destination, resolved, is ~/Sorted or a folder below it
// — never the agent's folders, ~/.ssh, or anywhere a ".." or a link leads.
// The seeds are the texts that escaped before (plain `go test` replays
// them).
func FuzzFileMoveTemplate(f *testing.F) {
	fuzzMove(f, "~/Sorted/", scouts.WriteScope{Folders: []string{"/**"}})
}

// FuzzFileMoveWriteScope is FuzzFileMoveTemplate with the template right
// after the home folder ("~/{{.text}}"), which the move's other checks
// let into any folder of it (~/.ssh): the scout's default write scope
// alone keeps the move in ~/Sorted.
func FuzzFileMoveWriteScope(f *testing.F) {
	f.Add("{{.text | trim}}", ".ssh")
	f.Add("{{.text | trim}}", "Sorted/../.ssh")
	f.Add("{{.text | trim}}", "Sorted/keys")
	f.Add("{{.text | trim}}", "Sorted")
	f.Add("{{.text | trim}}", "Sortedx")
	f.Add("{{.text | trim}}", "/Sorted/./../.ssh")
	fuzzMove(f, "~/", scouts.WriteScope{})
}

// fuzzMove renders "to": prefix+template over the item's text and checks
// that the move is refused or lands in ~/Sorted, for a scout of scope w.
func fuzzMove(f *testing.F, prefix string, w scouts.WriteScope) {
	for _, seed := range []struct{ tmpl, text string }{
		{"{{.text | trim}}", "../.config/scouts/scouts.d"},
		{"{{.text | trim}}", "a/../../.ssh"},
		{"{{.text | trim}}", "keys"},
		{"{{.text | trim}}", "bills"},
		{"{{.text | trim}}", ".."},
		{"{{.text | trim}}", "/../../.local/share/scouts"},
		{"{{.name}}/{{.text | trim}}", "x/../../.."},
		{"{{.text | lower | trim}}/../{{.ext}}", "BILLS"},
		{"{{replace \"_\" \"/\" .text}}", "_.._.._.ssh"},
	} {
		f.Add(seed.tmpl, seed.text)
	}
	home, m, all := agentHome(f)
	inv := scoped(all, w)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "Sorted", "keys"))
	realSorted, err := filepath.EvalSymlinks(filepath.Join(home, "Sorted"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tmpl, text string) {
		doc, _ := json.Marshal(map[string]any{"id": "sort", "when": map[string]any{"name": map[string]any{"exists": true}},
			"then": map[string]any{"verdict": "show", "actions": []any{map[string]any{"action": "file.move",
				"params": map[string]any{"to": prefix + tmpl}}}}})
		c, err := rules.Compile(rules.KindFolder, doc, rules.Options{})
		if err != nil {
			return // not a template rules accept
		}
		it := rules.NewItem(rules.KindFolder)
		it.SetString("name", "acme.txt")
		it.SetString("path", "bills/acme.txt")
		it.SetString("ext", "txt")
		it.SetString("text", text)
		eff := c.Apply(it, time.UTC)
		if len(eff.Actions) != 1 {
			return // the template failed on this item: no action
		}
		var p struct {
			To string `json:"to"`
		}
		if err := json.Unmarshal(eff.Actions[0].Params, &p); err != nil {
			t.Fatalf("rendered params %s: %v", eff.Actions[0].Params, err)
		}
		if err := m.Check(context.Background(), inv(p.To)); err != nil {
			if scouts.ErrorCode(err) != scouts.EInvalid {
				t.Fatalf("to %q: refused with code %s, want invalid: %v", p.To, scouts.ErrorCode(err), err)
			}
			return
		}
		if strings.Contains("/"+p.To+"/", "/../") {
			t.Fatalf("to %q has a \"..\" segment and was accepted", p.To)
		}
		dest, err := filepath.EvalSymlinks(filepath.Join(home, strings.TrimPrefix(p.To, "~")))
		if err != nil {
			t.Fatalf("to %q was accepted but does not resolve: %v", p.To, err)
		}
		if rel, err := filepath.Rel(realSorted, dest); err != nil || !filepath.IsLocal(rel) {
			t.Fatalf("to %q (text %q) escapes ~/Sorted: it resolves to %s", p.To, text, dest)
		}
	})
}
