package defsync_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// newestVersion is a scout's newest recorded version, read from the
// database as it is (ScoutHistory would record a pending change first and
// hide a change that recorded nothing).
func newestVersion(t *testing.T, c *core.Core, scoutID string) (int, string, string, definition.Document) {
	t.Helper()
	list, err := c.DB.ListScoutVersions(context.Background(), scoutID)
	if err != nil || len(list) == 0 {
		t.Fatalf("versions of %s: %d, %v", scoutID, len(list), err)
	}
	d, err := definition.Parse("version", list[0].Document)
	if err != nil {
		t.Fatal(err)
	}
	return list[0].Version, list[0].Actor, list[0].Note, d
}

func ruleState(d definition.Document) string {
	var out []string
	for _, raw := range d.Rules {
		var r struct {
			ID      string `json:"id"`
			Enabled *bool  `json:"enabled"`
			Then    struct {
				Verdict string `json:"verdict"`
			} `json:"then"`
		}
		json.Unmarshal(raw, &r)
		s := r.ID + ":" + r.Then.Verdict
		if r.Enabled != nil && !*r.Enabled {
			s += "(off)"
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

// Every change through the rules API records a new version at once, named
// after who made it and what it was; an import that replaces several
// rules records one version, not one per rule.
func TestRuleChangesRecordVersions(t *testing.T) {
	c, _ := openCoreIn(t, t.TempDir())
	ctx := defsync.WithActor(context.Background(), "window")
	cfg, _ := json.Marshal(map[string]any{"path": t.TempDir()})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "In", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Scout.ID
	if v, actor, _, _ := newestVersion(t, c, id); v != 1 || actor != "window" {
		t.Fatalf("created: version %d by %q", v, actor)
	}
	steps := []struct {
		what   string
		change func() error
		rules  string
		note   string
	}{
		{"add", func() error {
			_, err := c.Rules().Add(ctx, id, []byte(`{"id":"pdf","when":{"ext":{"equals":"pdf"}},"then":{"verdict":"show","kind":"note"}}`), -1)
			return err
		}, "pdf:show", `rule "pdf" added`},
		{"edit", func() error {
			_, err := c.Rules().Update(ctx, id, "pdf", []byte(`{"when":{"ext":{"equals":"pdf"}},"then":{"verdict":"screen"}}`))
			return err
		}, "pdf:screen", `rule "pdf" edited`},
		{"disable", func() error { _, err := c.Rules().SetEnabled(ctx, id, "pdf", false); return err }, "pdf:screen(off)", `rule "pdf" switched off`},
		{"enable", func() error { _, err := c.Rules().SetEnabled(ctx, id, "pdf", true); return err }, "pdf:screen", `rule "pdf" switched on`},
		{"add a second", func() error {
			_, err := c.Rules().Add(ctx, id, []byte(`{"id":"tmp","when":{"ext":{"equals":"tmp"}},"then":{"verdict":"skip"}}`), -1)
			return err
		}, "pdf:screen,tmp:skip", `rule "tmp" added`},
		{"reorder", func() error { _, err := c.Rules().Reorder(ctx, id, []string{"tmp", "pdf"}); return err }, "tmp:skip,pdf:screen", "rules reordered"},
		{"delete", func() error { return c.Rules().Delete(ctx, id, "tmp") }, "pdf:screen", `rule "tmp" deleted`},
		{"learning", func() error {
			return c.Definitions().SetLearnSettings(ctx, id, scouts.LearnSettings{ColdStart: 12, ScreenBelow: 0.3, SpamAbove: 0.9, MinSpam: 10})
		}, "pdf:screen", "learning thresholds changed"},
	}
	for i, st := range steps {
		if err := st.change(); err != nil {
			t.Fatalf("%s: %v", st.what, err)
		}
		v, actor, note, d := newestVersion(t, c, id)
		if v != i+2 || actor != "window" || note != st.note || ruleState(d) != st.rules {
			t.Fatalf("after %s: version %d (want %d) by %q, note %q, rules %q (want %q)", st.what, v, i+2, actor, note, ruleState(d), st.rules)
		}
	}

	// An import replacing the rules: one version for the whole document.
	docs, err := c.Definitions().Export(ctx, []string{id}, defsync.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, _, _, _ := newestVersion(t, c, id)
	d := docs[0]
	d.Rules = []json.RawMessage{
		json.RawMessage(`{"id":"a","when":{"ext":{"equals":"a"}},"then":{"verdict":"show"}}`),
		json.RawMessage(`{"id":"b","when":{"ext":{"equals":"b"}},"then":{"verdict":"show"}}`),
	}
	if _, err := c.Definitions().Import(ctx, []definition.Document{d}, defsync.ImportOptions{Apply: true, Actor: "cli", Note: "import"}); err != nil {
		t.Fatal(err)
	}
	if v, actor, _, got := newestVersion(t, c, id); v != before+1 || actor != "cli" || ruleState(got) != "a:show,b:show" {
		t.Fatalf("import: version %d (want %d) by %q, rules %q", v, before+1, actor, ruleState(got))
	}
}

// A scout a definitions file manages is not rolled back behind its file's
// back: the rollback is refused (409) naming the file, and nothing
// changes.
func TestRollbackOfAFileManagedScout(t *testing.T) {
	ctx := context.Background()
	defs := t.TempDir()
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs})
	watched := t.TempDir()
	file := filepath.Join(defs, "scans.yaml")
	if err := os.WriteFile(file, []byte(folderDef(t, "Scans", watched)), 0o600); err != nil {
		t.Fatal(err)
	}
	id := onlyScout(t, c)
	if err := os.WriteFile(file, []byte(folderDef(t, "Renamed", watched)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The scout is renamed before the version is recorded: wait for both.
	reconciled(t, c, func() bool { l, _ := c.DB.ListScoutVersions(ctx, id); return len(l) == 2 })
	_, err := c.Definitions().Rollback(ctx, id, 1, "api")
	if scouts.ErrorCode(err) != scouts.EConflict || !strings.Contains(scouts.ErrorMessage(err), "scans.yaml") {
		t.Fatalf("rollback of a file-managed scout: %v", err)
	}
	if s, _ := c.DB.GetScout(ctx, id); s.Name != "Renamed" {
		t.Fatalf("a refused rollback changed the scout: %q", s.Name)
	}
	if v, _, _, _ := newestVersion(t, c, id); v != 2 {
		t.Fatalf("a refused rollback recorded version %d", v)
	}
}

// exported is a scout's current definition as an export writes it.
func exported(t *testing.T, c *core.Core, id string) string {
	t.Helper()
	docs, err := c.Definitions().Export(context.Background(), []string{id}, defsync.ExportOptions{})
	if err != nil || len(docs) != 1 {
		t.Fatalf("export of %s: %d, %v", id, len(docs), err)
	}
	b, _ := definition.Marshal(docs[0])
	return string(b)
}

// The rules and learning thresholds of a scout a definitions file manages
// are its file's: every change through the API is refused (409) naming
// the file, and nothing changes, unless the change asks to write the file, which then
// holds the new rules (and reading it back changes nothing more).
func TestRuleChangesOfAFileManagedScout(t *testing.T) {
	ctx := context.Background()
	defs := t.TempDir()
	c, _ := openCoreWith(t, core.Config{DataDir: t.TempDir(), DefinitionsDir: defs})
	file := filepath.Join(defs, "scans.yaml")
	text := folderDef(t, "Scans", t.TempDir()) +
		"rules:\n  - {id: pdf, when: {ext: {equals: pdf}}, then: {verdict: show}}\n  - {id: tmp, when: {ext: {equals: tmp}}, then: {verdict: skip}}\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	id := onlyScout(t, c)
	reconciled(t, c, func() bool { l, _ := c.DB.ListScoutVersions(ctx, id); return len(l) == 1 })
	const before = "pdf:show,tmp:skip"
	current := exported(t, c, id)
	for _, ch := range []struct {
		what   string
		change func(context.Context) error
	}{
		{"add", func(ctx context.Context) error {
			_, err := c.Rules().Add(ctx, id, []byte(`{"id":"doc","when":{"ext":{"equals":"doc"}},"then":{"verdict":"show"}}`), -1)
			return err
		}},
		{"edit", func(ctx context.Context) error {
			_, err := c.Rules().Update(ctx, id, "pdf", []byte(`{"when":{"ext":{"equals":"pdf"}},"then":{"verdict":"screen"}}`))
			return err
		}},
		{"switch off", func(ctx context.Context) error { _, err := c.Rules().SetEnabled(ctx, id, "pdf", false); return err }},
		{"reorder", func(ctx context.Context) error {
			_, err := c.Rules().Reorder(ctx, id, []string{"tmp", "pdf"})
			return err
		}},
		{"move", func(ctx context.Context) error { _, err := c.Rules().Move(ctx, id, "tmp", 0); return err }},
		{"delete", func(ctx context.Context) error { return c.Rules().Delete(ctx, id, "tmp") }},
		{"learning", func(ctx context.Context) error {
			return c.Definitions().SetLearnSettings(ctx, id, scouts.LearnSettings{ColdStart: 12, ScreenBelow: 0.3, SpamAbove: 0.9, MinSpam: 10})
		}},
	} {
		err := ch.change(ctx)
		if scouts.ErrorCode(err) != scouts.EConflict || !strings.Contains(scouts.ErrorMessage(err), "managed by scans.yaml") {
			t.Fatalf("%s a rule of a file-managed scout: %v", ch.what, err)
		}
		if v, _, _, d := newestVersion(t, c, id); v != 1 || ruleState(d) != before {
			t.Fatalf("a refused %s recorded version %d with rules %q", ch.what, v, ruleState(d))
		}
		if now := exported(t, c, id); now != current {
			t.Fatalf("a refused %s changed the scout:\n%s\nwas\n%s", ch.what, now, current)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != text {
		t.Fatalf("a refused change wrote the file:\n%s", data)
	}

	// Asked to write the file: the change is made, recorded once, and the
	// file holds it.
	wctx := defsync.WithWriteFile(defsync.WithActor(ctx, "window"))
	if _, err := c.Rules().SetEnabled(wctx, id, "tmp", false); err != nil {
		t.Fatal(err)
	}
	v, actor, note, _ := newestVersion(t, c, id)
	if v != 2 || actor != "window" || note != `rule "tmp" switched off` {
		t.Fatalf("written change: version %d by %q, %q", v, actor, note)
	}
	data, _ := os.ReadFile(file)
	d, err := definition.Parse("scans.yaml", data)
	if err != nil || ruleState(d) != "pdf:show,tmp:skip(off)" {
		t.Fatalf("the file after the change (%v): %s", err, data)
	}
	if err := c.Definitions().Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _, _, _ := newestVersion(t, c, id); v != 2 || len(c.Definitions().Errors()) != 0 {
		t.Fatalf("reading the written file back: version %d, errors %+v", v, c.Definitions().Errors())
	}
}
