package defdraft_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/scouts/triage/triagetest"
)

// A draft made from a description proposes the narrowest write scope that
// does the job, whatever the model wrote: the folder a templated move
// starts in and below, the exact folder of a plain one, the one host it
// posts to, no labels; the summary says it. A host a template fills is a
// risk, since no scope can allow it.
func TestDraftProposesTheNarrowestWriteScope(t *testing.T) {
	c, srv := draftCore(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "Scans")
	os.MkdirAll(dir, 0o755)
	doc, _ := json.Marshal(map[string]any{"version": 1, "kind": "folder", "name": "Scans", "enabled": true, "review": true,
		"source":      map[string]any{"path": dir},
		"write_scope": map[string]any{"folders": []string{"~/**"}, "hosts": []string{"*.example.com"}},
		"rules": []any{
			map[string]any{"id": "sort", "when": map[string]any{"name": map[string]any{"exists": true}}, "then": map[string]any{"verdict": "show",
				"actions": []any{
					map[string]any{"action": "file.move", "params": map[string]any{"to": "~/Sorted/{{.text | trim}}"}},
					map[string]any{"action": "file.move", "params": map[string]any{"to": "~/Archive/"}},
					map[string]any{"action": "webhook.post", "params": map[string]any{"url": "https://hooks.example.com/in/{{.name}}"}},
				}}},
			map[string]any{"id": "echo", "when": map[string]any{"name": map[string]any{"exists": true}}, "then": map[string]any{"verdict": "show",
				"actions": []any{map[string]any{"action": "webhook.post", "params": map[string]any{"url": "https://{{.text}}/in"}}}}},
		}})
	srv.Script(triagetest.Turn{Content: string(doc)})
	d, err := c.Drafts().Draft(ctx, "sort my scans and tell my hook")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		WriteScope struct{ Folders, Labels, Hosts []string } `json:"write_scope"`
	}
	if err := json.Unmarshal(d.Definition, &got); err != nil {
		t.Fatalf("definition %s: %v", d.Definition, err)
	}
	w := got.WriteScope
	if !d.Valid || !slices.Equal(w.Folders, []string{"~/Sorted/**", "~/Archive"}) || w.Labels == nil || len(w.Labels) != 0 ||
		!slices.Equal(w.Hosts, []string{"hooks.example.com"}) {
		t.Fatalf("draft (valid %v, errors %v) proposes the scope %+v in %s", d.Valid, d.Errors, w, d.Definition)
	}
	sum := strings.Join(d.Summary, "\n")
	if !strings.Contains(sum, "Its actions may move files into: ~/Sorted/**, ~/Archive.") || !strings.Contains(sum, "Its actions may post to: hooks.example.com.") {
		t.Fatalf("summary:\n%s", sum)
	}
	if !strings.Contains(risks(d), "templated_host") {
		t.Fatalf("risks %s", risks(d))
	}
}
