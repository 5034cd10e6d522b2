package rulebook_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scouts-hq/scouts/app/core"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

func addRules(t *testing.T, c *core.Core, scoutID string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		doc := fmt.Sprintf(`{"id":%q,"when":{"name":{"equals":%q}},"then":{"verdict":"show"}}`, id, id)
		if _, err := c.Rules().Add(context.Background(), scoutID, []byte(doc), -1); err != nil {
			t.Fatal(err)
		}
	}
}

// An import whose rules name one id twice is refused before anything
// changes. It used to delete the scout's rules, add the first of the two
// and stop with "already has a rule": the person was left with one rule
// of their many, and an exit status saying the import failed.
func TestImportWithARuleIDTwiceChangesNothing(t *testing.T) {
	ctx := context.Background()
	c, _ := openCoreIn(t, t.TempDir())
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"path": dir})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Papers", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	addRules(t, c, cr.Scout.ID, "a", "b", "c")
	before, _ := c.Definitions().History(ctx, cr.Scout.ID)

	doc := fmt.Sprintf(`{"version":1,"id":%q,"kind":"folder","name":"Papers","source":{"path":%q},"rules":[
		{"id":"x","when":{"name":{"equals":"1"}},"then":{"verdict":"show"}},
		{"id":"x","when":{"name":{"equals":"2"}},"then":{"verdict":"spam"}}]}`, cr.Scout.ID, dir)
	parsed, err := definition.ParseAll("twice.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, apply := range []bool{false, true} {
		_, err := c.Definitions().Import(ctx, parsed, defsync.ImportOptions{Apply: apply, Actor: "test"})
		if scouts.ErrorCode(err) != scouts.EInvalid {
			t.Fatalf("apply=%v: a rule id twice: got %v, want an invalid definition", apply, err)
		}
	}
	if got := ruleIDs(t, c, cr.Scout.ID); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("the refused import changed the rules to %v", got)
	}
	if after, _ := c.Definitions().History(ctx, cr.Scout.ID); len(after) != len(before) {
		t.Fatalf("the refused import recorded %d versions", len(after)-len(before))
	}
}

// A rollback that fails while it writes the rules (here a write the
// database refuses, as a full disk would; a crash is the same) leaves the
// rules as they were: they are replaced in one transaction, never left
// half deleted.
func TestRollbackReplacesRulesWhole(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	c, _ := openCoreIn(t, dataDir)
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"path": dir})
	cr, err := c.CreateScout(ctx, core.NewScout{Kind: scouts.KindFolder, Name: "Papers", Review: true, Enabled: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	addRules(t, c, cr.Scout.ID, "old1", "boom", "old2")
	hist, _ := c.Definitions().History(ctx, cr.Scout.ID)
	withBoom := hist[0].Version
	for _, id := range []string{"old1", "boom", "old2"} {
		if err := c.Rules().Delete(ctx, cr.Scout.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	addRules(t, c, cr.Scout.ID, "new1", "new2", "new3")

	db, err := sql.Open("sqlite3", filepath.Join(dataDir, "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TRIGGER refuse_boom BEFORE INSERT ON scout_rules WHEN NEW.id = 'boom'
		BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Definitions().Rollback(ctx, cr.Scout.ID, withBoom, "test"); err == nil {
		t.Fatal("the rollback succeeded although its rule could not be written")
	}
	if got := ruleIDs(t, c, cr.Scout.ID); !slices.Equal(got, []string{"new1", "new2", "new3"}) {
		t.Fatalf("a failed rollback left the rules %v, want them as they were", got)
	}

	if _, err := db.ExecContext(ctx, `DROP TRIGGER refuse_boom`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Definitions().Rollback(ctx, cr.Scout.ID, withBoom, "test"); err != nil {
		t.Fatal(err)
	}
	if got := ruleIDs(t, c, cr.Scout.ID); !slices.Equal(got, []string{"old1", "boom", "old2"}) {
		t.Fatalf("rules after the rollback %v", got)
	}
}

// The Describe dialog's check says whether the agent can create a
// definition: two rules of one id cannot be (the import refuses them), so
// the check must not call it valid.
func TestCheckDefinitionRefusesARuleIDTwice(t *testing.T) {
	c, _ := openCoreIn(t, t.TempDir())
	d := c.Drafts().Check(context.Background(), []byte(fmt.Sprintf(`{"version":1,"kind":"folder","name":"Dup","source":{"path":%q},"rules":[
		{"id":"x","when":{"name":{"equals":"1"}},"then":{"verdict":"show"}},
		{"id":"x","when":{"name":{"equals":"2"}},"then":{"verdict":"show"}}]}`, t.TempDir())))
	if d.Valid || len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Reason, `"x"`) {
		t.Fatalf("a rule id twice: valid %v, errors %+v", d.Valid, d.Errors)
	}
}
