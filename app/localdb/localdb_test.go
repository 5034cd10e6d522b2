package localdb_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/scouts-hq/scouts/app/localdb"
	"github.com/scouts-hq/scouts/scouts"
)

func openTempDB(t *testing.T) *localdb.DB {
	t.Helper()
	db, err := localdb.Open(context.Background(), filepath.Join(t.TempDir(), "scouts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func projectTitles(t *testing.T, db *localdb.DB) []string {
	t.Helper()
	list, err := db.OpenProjects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list {
		out = append(out, p.Title)
	}
	return out
}

// The open projects content cues match against are read once and kept
// until the next write: a project created, renamed or finished is seen by
// the very next item.
func TestOpenProjectsFollowWrites(t *testing.T) {
	ctx := context.Background()
	db := openTempDB(t)
	if got := projectTitles(t, db); len(got) != 0 {
		t.Fatalf("open projects of a new database: %v", got)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	p := scouts.Entity{ID: scouts.NewID("pj"), Kind: scouts.EntityProject, Title: "Website relaunch", CreatedAt: now, UpdatedAt: now}
	if err := db.CreateEntity(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := projectTitles(t, db); len(got) != 1 || got[0] != "Website relaunch" {
		t.Fatalf("after creating a project: %v", got)
	}
	title := "Website relaunch 2027"
	if _, err := db.UpdateEntity(ctx, scouts.EntityProject, p.ID, scouts.EntityPatch{Title: &title}, now); err != nil {
		t.Fatal(err)
	}
	if got := projectTitles(t, db); len(got) != 1 || got[0] != title {
		t.Fatalf("after renaming it: %v", got)
	}
	// What a caller does with the list it got changes nothing kept.
	list, _ := db.OpenProjects(ctx)
	list[0].Title = "changed by a caller"
	if got := projectTitles(t, db); got[0] != title {
		t.Fatalf("a caller's change leaked into the kept list: %v", got)
	}
	done := true
	if _, err := db.UpdateEntity(ctx, scouts.EntityProject, p.ID, scouts.EntityPatch{Done: &done}, now); err != nil {
		t.Fatal(err)
	}
	if got := projectTitles(t, db); len(got) != 0 {
		t.Fatalf("after finishing it: %v", got)
	}
}

// A page of items is recorded in one transaction: a (scout, source ref)
// already known is skipped with its audit, the others keep their audit
// events in order, and items of the same page are all new.
func TestRecordItemsSkipsKnownRefsAndKeepsAuditOrder(t *testing.T) {
	ctx := context.Background()
	db := openTempDB(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	sc := scouts.Scout{ID: scouts.NewID("sc"), Kind: scouts.KindWebhook, Name: "CI", Enabled: true, Review: true, CreatedAt: now, UpdatedAt: now}
	if err := db.CreateScout(ctx, sc); err != nil {
		t.Fatal(err)
	}
	first := pageOf(sc.ID, 0, 3, now)
	got, err := db.RecordItems(ctx, first, nil)
	if err != nil || len(got) != 3 {
		t.Fatalf("first page: %d recorded, %v", len(got), err)
	}
	// The second page repeats item 2 (as after a crash) and brings two
	// new ones, plus an event about the page itself.
	second := pageOf(sc.ID, 2, 3, now)
	loose := scouts.AuditEvent{TraceID: "tr_loose", Stage: scouts.StageSource, Type: scouts.AuditItemSkipped, Outcome: scouts.OutcomeSkipped,
		Summary: "skipped", At: now}
	got, err = db.RecordItems(ctx, second, []scouts.AuditEvent{loose})
	if err != nil || len(got) != 2 || got[0].Suggestion.SourceRef != "qi_000003" || got[1].Suggestion.SourceRef != "qi_000004" {
		t.Fatalf("second page: %+v, %v", got, err)
	}
	n, err := db.CountSuggestions(ctx)
	if err != nil || n[scouts.StatusPending] != 5 {
		t.Fatalf("suggestions %v %v, want 5 pending", n, err)
	}
	events, err := db.ListAudit(ctx, localdb.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, rec := range append(first, second[1:]...) {
		for _, e := range rec.Audit {
			want = append(want, e.TraceID+" "+e.Type)
		}
	}
	want = append(want, "tr_loose "+scouts.AuditItemSkipped)
	if len(events) != len(want) {
		t.Fatalf("%d audit events, want %d", len(events), len(want))
	}
	for i, e := range events {
		if e.TraceID+" "+e.Type != want[i] || e.Refs["scout_id"] != "" && e.Refs["scout_id"] != sc.ID {
			t.Fatalf("audit event %d: %s %s, want %s", i, e.TraceID, e.Type, want[i])
		}
	}
}
